package queue

import (
	"context"
	"encoding/json"
	"slices"
	"strings"
	"time"

	"github.com/jackc/pgx/v5/pgconn"
	"github.com/riverqueue/river/riverdriver"
)

// WaitForNotification returns the next notification, heard or made up.
func (p *pgListener) WaitForNotification(ctx context.Context) (*riverdriver.Notification, error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	conn, err := p.connected()
	if err != nil {
		return nil, err
	}
	for {
		n := p.next(time.Now())
		if n == nil {
			if err := p.wait(ctx, conn); err != nil {
				return nil, err
			}
			continue
		}
		if n.Topic != scheduledTopic {
			return n, nil
		}
		// A job the leader's scheduler made available early is due: every replica is told, as an insert
		// would tell them, so that the leader does not run every delay's end and backoff alone. This
		// connection hears its own notification, which wakes this process's queue too.
		// p.mu is held here, so the connection is used directly rather than through exec.
		sql := `SELECT pg_notify('` + strings.ReplaceAll(p.prefix+insertTopic, "'", "''") + `', '` +
			strings.ReplaceAll(n.Payload, "'", "''") + `')`
		if _, err := conn.Exec(ctx, sql).ReadAll(); err != nil {
			return nil, err
		}
	}
}

// scheduledTopic marks a made-up notification for a scheduled job that fell due, which
// WaitForNotification sends to every replica instead of returning.
const scheduledTopic = "loopwork_scheduled_due"

// next is the notification to return now, if any: those heard in order, then a made-up one due. A
// heard insert notification starts (or extends) the time of polls.
func (p *pgListener) next(now time.Time) *riverdriver.Notification {
	if len(p.got) > 0 {
		n := p.got[0]
		p.got = p.got[1:]
		topic := strings.TrimPrefix(n.Channel, p.prefix)
		if topic == insertTopic {
			p.lastInsert = now
			if !p.polling {
				p.polling = true
				for _, q := range p.queues {
					p.addWake(wake{at: now.Add(activePoll), queue: q, poll: true})
				}
			}
			if p.heard != nil {
				p.heard()
			}
		}
		return &riverdriver.Notification{Topic: topic, Payload: n.Payload}
	}
	w, ok := p.due(now)
	if !ok {
		return nil
	}
	b, _ := json.Marshal(insertPayload{Queue: w.queue})
	if !w.poll {
		return &riverdriver.Notification{Topic: scheduledTopic, Payload: string(b)}
	}
	if now.Sub(p.lastInsert) > activeFor {
		p.polling = false
		return p.next(now)
	}
	p.addWake(wake{at: now.Add(activePoll), queue: w.queue, poll: true})
	return &riverdriver.Notification{Topic: insertTopic, Payload: string(b)}
}

// due takes the earliest wake-up if its time has come.
func (p *pgListener) due(now time.Time) (wake, bool) {
	p.wakeMu.Lock()
	defer p.wakeMu.Unlock()
	if len(p.wakes) == 0 || p.wakes[0].at.After(now) {
		return wake{}, false
	}
	w := p.wakes[0]
	p.wakes = p.wakes[1:]
	return w, true
}

// wakeAt makes up an insert notification for queue at t (see scheduledExecutor), cutting short a wait
// that would end later.
func (p *pgListener) wakeAt(queue string, t time.Time) {
	p.addWake(wake{at: t, queue: queue})
}

func (p *pgListener) addWake(w wake) {
	p.wakeMu.Lock()
	defer p.wakeMu.Unlock()
	i, _ := slices.BinarySearchFunc(p.wakes, w.at, func(x wake, t time.Time) int { return x.at.Compare(t) })
	// A wake-up of the same queue close to this one does: two fetches within wakeSlack find the same jobs.
	for _, j := range []int{i - 1, i} {
		if j >= 0 && j < len(p.wakes) && p.wakes[j].queue == w.queue && p.wakes[j].poll == w.poll &&
			p.wakes[j].at.Sub(w.at).Abs() < wakeSlack {
			return
		}
	}
	p.wakes = slices.Insert(p.wakes, i, w)
	if p.cancelWait != nil && w.at.Before(p.waitUntil) {
		p.cancelWait()
	}
}

// wait reads the connection until a notification arrives, ctx ends or a wake-up is due.
func (p *pgListener) wait(ctx context.Context, conn *pgconn.PgConn) error {
	wctx, cancel := context.WithCancel(ctx)
	defer cancel()
	p.wakeMu.Lock()
	until := time.Now().Add(time.Hour)
	if len(p.wakes) > 0 {
		until = p.wakes[0].at
	}
	p.waitUntil, p.cancelWait = until, cancel
	p.wakeMu.Unlock()
	defer func() {
		p.wakeMu.Lock()
		p.cancelWait = nil
		p.wakeMu.Unlock()
	}()
	wctx, cancelDeadline := context.WithDeadline(wctx, until)
	defer cancelDeadline()
	err := conn.WaitForNotification(wctx)
	if err != nil && ctx.Err() == nil && wctx.Err() != nil {
		return nil // a wake-up is due, or an earlier one came; the connection stays usable after a wait cut short
	}
	return err
}
