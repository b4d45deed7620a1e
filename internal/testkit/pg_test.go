package testkit

import (
	"testing"

	"github.com/jmoiron/sqlx"
)

// TestOtherPostgres: the second cluster answers queries and is not the server the tests' databases live on.
func TestOtherPostgres(t *testing.T) {
	url := OtherPostgres(t)
	db, err := sqlx.Connect("postgres", url)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	var one int
	if err := db.Get(&one, "SELECT 1"); err != nil || one != 1 {
		t.Fatalf("SELECT 1 = %d, %v", one, err)
	}
	if url == ServerURL(t) {
		t.Fatalf("second cluster has the same URL as TEST_DATABASE_URL: %s", url)
	}
}
