package httpx

import "math"

// Paging is one page of a list on the /api interface: page counts from 1, limit is 1..100 (the
// contract's Page and Limit parameters enforce the ranges before a handler runs).
type Paging struct {
	Page, Limit int
}

// NewPaging applies the contract's defaults (page 1, limit 20) to optional parameters.
func NewPaging(page, limit *int) Paging {
	p := Paging{Page: 1, Limit: 20}
	if page != nil && *page > 0 {
		p.Page = *page
	}
	if limit != nil && *limit > 0 {
		p.Limit = *limit
	}
	return p
}

// Offset is the number of rows before the page; a page too far out to count is past the end of any
// table (an empty page), never a product that wraps round to a negative OFFSET.
func (p Paging) Offset() int {
	if p.Limit > 0 && p.Page-1 > math.MaxInt/p.Limit {
		return math.MaxInt
	}
	return (p.Page - 1) * p.Limit
}
