package httpx

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

// Offset is the number of rows before the page.
func (p Paging) Offset() int { return (p.Page - 1) * p.Limit }
