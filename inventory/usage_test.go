package inventory_test

import (
	"testing"

	"github.com/heedcrawl/heed/inventory"
)

// TestInventoryColumns checks the inventory's last column is the usage
// cell (middleware.UsageSummary, tested there).
func TestInventoryColumns(t *testing.T) {
	if len(inventory.Columns) == 0 || inventory.Columns[len(inventory.Columns)-1] != "usage" {
		t.Errorf("columns %v", inventory.Columns)
	}
}

func TestInventoryAcceptsAgentsWithDigits(t *testing.T) {
	if _, err := inventory.New("MJ12bot"); err != nil {
		t.Errorf("MJ12bot: %v", err)
	}
	if _, err := inventory.New("Foo Bar"); err == nil {
		t.Error("Foo Bar accepted")
	}
}
