package metrics

import (
	"github.com/prometheus/client_golang/prometheus"

	"github.com/heedcrawl/heed/inventory"
)

// inventoryCollector reads an inventory's Progress at every scrape.
type inventoryCollector struct {
	inv                                 *inventory.Inventory
	sitemaps, urls, disallowed, elapsed *prometheus.Desc
}

// NewInventoryCollector returns a collector of an inventory's progress
// (heed inventory --metrics): heed_inventory_sitemaps_total,
// heed_inventory_urls_total, heed_inventory_disallowed_total and
// heed_inventory_elapsed_seconds; constLabels (may be nil) are added to
// each.
func NewInventoryCollector(inv *inventory.Inventory, constLabels prometheus.Labels) prometheus.Collector {
	d := func(name, help string) *prometheus.Desc {
		return prometheus.NewDesc(prometheus.BuildFQName(Namespace, "inventory", name), help, nil, constLabels)
	}
	return &inventoryCollector{inv: inv,
		sitemaps:   d("sitemaps_total", "Sitemaps read so far."),
		urls:       d("urls_total", "Rows (listed URLs) delivered so far."),
		disallowed: d("disallowed_total", "Rows robots.txt does not allow for the inventory's own agent."),
		elapsed:    d("elapsed_seconds", "Time since the inventory started."),
	}
}

func (c *inventoryCollector) Describe(ch chan<- *prometheus.Desc) {
	ch <- c.sitemaps
	ch <- c.urls
	ch <- c.disallowed
	ch <- c.elapsed
}

func (c *inventoryCollector) Collect(ch chan<- prometheus.Metric) {
	p := c.inv.Progress()
	ch <- prometheus.MustNewConstMetric(c.sitemaps, prometheus.CounterValue, float64(p.Sitemaps))
	ch <- prometheus.MustNewConstMetric(c.urls, prometheus.CounterValue, float64(p.URLs))
	ch <- prometheus.MustNewConstMetric(c.disallowed, prometheus.CounterValue, float64(p.Disallowed))
	ch <- prometheus.MustNewConstMetric(c.elapsed, prometheus.GaugeValue, p.Elapsed.Seconds())
}

// ListenInventory serves an inventory's progress at /metrics on addr, as
// Listen does a crawl's.
func ListenInventory(addr string, inv *inventory.Inventory, labels prometheus.Labels) (*Server, error) {
	return serve(addr, labels, NewInventoryCollector(inv, labels))
}
