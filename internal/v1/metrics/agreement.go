package metrics

// Alpha is Krippendorff's alpha for nominal labels: the agreement between labelers who labeled the
// same jobs, 1 for perfect agreement, 0 for agreement no better than chance. units holds, per job, the
// labels given to it (canonical JSON or any comparable text); jobs with fewer than two labels are not
// pairable and are left out. With the coincidence matrix o (each ordered pair of labels of a job adds
// 1/(m−1), m the job's number of labels), n_c = Σ_k o[c][k] and n = Σ_c n_c:
// α = 1 − D_o / D_e, D_o = Σ_{c≠k} o[c][k], D_e = Σ_{c≠k} n_c·n_k / (n − 1).
// ok is false when no job has two labels, or when every label is the same (D_e = 0).
func Alpha(units [][]string) (alpha float64, pairable int, ok bool) {
	o := map[[2]string]float64{}
	nc := map[string]float64{}
	var n float64
	for _, u := range units {
		m := len(u)
		if m < 2 {
			continue
		}
		pairable++
		w := 1 / float64(m-1)
		for i := range u {
			for j := range u {
				if i != j {
					o[[2]string{u[i], u[j]}] += w
				}
			}
			nc[u[i]]++
			n++
		}
	}
	if pairable == 0 {
		return 0, 0, false
	}
	var do, de float64
	for k, v := range o {
		if k[0] != k[1] {
			do += v
		}
	}
	for c, a := range nc {
		for k, b := range nc {
			if c != k {
				de += a * b
			}
		}
	}
	de /= n - 1
	if de == 0 {
		return 0, pairable, false
	}
	return 1 - do/de, pairable, true
}
