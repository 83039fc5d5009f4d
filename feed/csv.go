package feed

import (
	"encoding"
	"encoding/base64"
	"encoding/csv"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"
)

// CSV is a pipeline.Exporter writing items as CSV rows under a header line.
//
// The columns are fixed once, by CSVColumns or by the first item:
//
//   - a struct (or pointer to one): its exported fields in declaration
//     order, named by the `csv` tag, else the `json` tag's name, else the
//     field name; "-" leaves a field out; the fields of an embedded struct
//     without a tag are inlined, as encoding/json does;
//   - a map with string keys: its keys, sorted (a map has no order of its
//     own, and a stable header matters more than the first item's whim);
//   - anything else: one column, "value".
//
// Later items are matched to the columns by name: a missing field or key
// leaves its cell empty, and a field or key with no column is not written.
// Cells hold strings, numbers and booleans as text (floats in the
// shortest form that reads back equal), time.Time and other
// encoding.TextMarshaler values as their text, []byte as base64, nil as
// the empty cell, and nested structs, slices and maps as compact JSON.
//
// The header goes out with the first row, each row is flushed as it is
// written, and Close writes the header alone if no row came, so a stopped
// crawl leaves a CSV whose every line is complete.
type CSV struct {
	cw     *csv.Writer
	w      io.Writer
	cols   []string
	fixed  bool
	header bool
	row    []string
	plans  map[reflect.Type]*csvPlan
}

// CSVOption configures a CSV exporter.
type CSVOption func(*CSV)

// CSVColumns fixes the columns and their order instead of taking them
// from the first item.
func CSVColumns(cols ...string) CSVOption {
	return func(c *CSV) { c.cols, c.fixed = append([]string(nil), cols...), len(cols) > 0 }
}

// CSVComma sets the field delimiter (default ',').
func CSVComma(r rune) CSVOption { return func(c *CSV) { c.cw.Comma = r } }

// NewCSV returns a CSV exporter writing to w.
func NewCSV(w io.Writer, opts ...CSVOption) *CSV {
	c := &CSV{cw: csv.NewWriter(w), w: w, plans: make(map[reflect.Type]*csvPlan)}
	for _, o := range opts {
		o(c)
	}
	return c
}

// Columns returns the header: the fixed columns, or those of the first
// item once one was exported.
func (c *CSV) Columns() []string { return append([]string(nil), c.cols...) }

// Export writes one item as a row, and the header before the first.
func (c *CSV) Export(item any) error {
	v := reflect.ValueOf(item)
	for v.Kind() == reflect.Pointer && !v.IsNil() && v.Elem().Kind() == reflect.Struct {
		v = v.Elem()
	}
	if !c.fixed {
		c.cols, c.fixed = columnsOf(v), true
	}
	row, err := c.cells(v)
	if err != nil {
		return fmt.Errorf("csv: %w", err)
	}
	if !c.header {
		if err := c.cw.Write(c.cols); err != nil {
			return err
		}
		c.header = true
	}
	if err := c.cw.Write(row); err != nil {
		return err
	}
	c.cw.Flush()
	return c.cw.Error()
}

// Close writes the header if no row was written and the columns are
// known, flushes, and syncs a regular file; it does not close the writer.
func (c *CSV) Close() error {
	if !c.header && len(c.cols) > 0 {
		c.header = true
		if err := c.cw.Write(c.cols); err != nil {
			return err
		}
	}
	c.cw.Flush()
	if err := c.cw.Error(); err != nil {
		return err
	}
	return syncFile(c.w)
}

// cells formats one item's row in column order.
func (c *CSV) cells(v reflect.Value) ([]string, error) {
	if cap(c.row) < len(c.cols) {
		c.row = make([]string, len(c.cols))
	}
	row := c.row[:len(c.cols)]
	clear(row)
	switch {
	case !v.IsValid():
	case v.Kind() == reflect.Struct:
		p := c.plans[v.Type()]
		if p == nil {
			p = planFor(v.Type(), c.cols)
			c.plans[v.Type()] = p
		}
		for i, f := range p.fields {
			if f.index == nil {
				continue
			}
			fv, ok := fieldByIndex(v, f.index)
			if !ok {
				continue
			}
			s, err := f.format(fv)
			if err != nil {
				return nil, fmt.Errorf("column %q: %w", c.cols[i], err)
			}
			row[i] = s
		}
	case v.Kind() == reflect.Map && v.Type().Key().Kind() == reflect.String:
		if m, ok := v.Interface().(map[string]string); ok {
			for i, col := range c.cols {
				row[i] = m[col]
			}
			break
		}
		kt := v.Type().Key()
		for i, col := range c.cols {
			mv := v.MapIndex(reflect.ValueOf(col).Convert(kt))
			if !mv.IsValid() {
				continue
			}
			s, err := formatCell(mv)
			if err != nil {
				return nil, fmt.Errorf("column %q: %w", col, err)
			}
			row[i] = s
		}
	default:
		if len(c.cols) == 1 && c.cols[0] == "value" {
			s, err := formatCell(v)
			if err != nil {
				return nil, err
			}
			row[0] = s
		}
	}
	return row, nil
}

// columnsOf returns the columns an item defines.
func columnsOf(v reflect.Value) []string {
	switch {
	case v.IsValid() && v.Kind() == reflect.Struct:
		fields := structFields(v.Type())
		cols := make([]string, len(fields))
		for i, f := range fields {
			cols[i] = f.name
		}
		return cols
	case v.IsValid() && v.Kind() == reflect.Map && v.Type().Key().Kind() == reflect.String:
		cols := make([]string, 0, v.Len())
		for _, k := range v.MapKeys() {
			cols = append(cols, k.String())
		}
		slices.Sort(cols)
		return cols
	}
	return []string{"value"}
}

// csvPlan maps a struct type onto the columns.
type csvPlan struct{ fields []csvField }

type csvField struct {
	name   string
	index  []int
	format func(reflect.Value) (string, error)
}

func planFor(t reflect.Type, cols []string) *csvPlan {
	byName := make(map[string]csvField)
	for _, f := range structFields(t) {
		byName[f.name] = f
	}
	p := &csvPlan{fields: make([]csvField, len(cols))}
	for i, col := range cols {
		p.fields[i] = byName[col]
	}
	return p
}

var structFieldCache sync.Map // reflect.Type -> []csvField

// structFields lists a struct type's columns, embedded structs inlined.
func structFields(t reflect.Type) []csvField {
	if fs, ok := structFieldCache.Load(t); ok {
		return fs.([]csvField)
	}
	var out []csvField
	seen := make(map[string]bool)
	var walk func(t reflect.Type, prefix []int, depth int)
	walk = func(t reflect.Type, prefix []int, depth int) {
		for i := 0; i < t.NumField(); i++ {
			sf := t.Field(i)
			name, tagged := fieldName(sf)
			if name == "-" {
				continue
			}
			idx := append(append([]int(nil), prefix...), i)
			ft := sf.Type
			if sf.Anonymous && !tagged && depth < 8 {
				if ft.Kind() == reflect.Pointer {
					ft = ft.Elem()
				}
				if ft.Kind() == reflect.Struct {
					walk(ft, idx, depth+1)
					continue
				}
			}
			if !sf.IsExported() || seen[name] {
				continue
			}
			seen[name] = true
			out = append(out, csvField{name: name, index: idx, format: formatterFor(sf.Type)})
		}
	}
	walk(t, nil, 0)
	structFieldCache.Store(t, out)
	return out
}

// fieldName returns a field's column name and whether a tag named it.
func fieldName(sf reflect.StructField) (string, bool) {
	for _, key := range []string{"csv", "json"} {
		tag, ok := sf.Tag.Lookup(key)
		if !ok {
			continue
		}
		name, _, _ := strings.Cut(tag, ",")
		if name == "-" && tag == "-" {
			return "-", true
		}
		if name != "" {
			return name, true
		}
	}
	return sf.Name, false
}

// fieldByIndex is reflect.Value.FieldByIndex without the panic on a nil
// embedded pointer.
func fieldByIndex(v reflect.Value, index []int) (reflect.Value, bool) {
	for i, x := range index {
		if i > 0 && v.Kind() == reflect.Pointer {
			if v.IsNil() {
				return reflect.Value{}, false
			}
			v = v.Elem()
		}
		v = v.Field(x)
	}
	return v, true
}

var textMarshaler = reflect.TypeFor[encoding.TextMarshaler]()

// formatterFor picks a cell formatter for a field type once, so rows
// cost no type analysis.
func formatterFor(t reflect.Type) func(reflect.Value) (string, error) {
	if t == reflect.TypeFor[time.Time]() {
		return func(v reflect.Value) (string, error) {
			return v.Interface().(time.Time).Format(time.RFC3339Nano), nil
		}
	}
	if t.Implements(textMarshaler) && t.Kind() != reflect.Pointer && t.Kind() != reflect.Interface {
		// Known once for the field's type: no Implements check per row.
		return func(v reflect.Value) (string, error) {
			b, err := v.Interface().(encoding.TextMarshaler).MarshalText()
			return string(b), err
		}
	}
	switch t.Kind() {
	case reflect.String:
		return func(v reflect.Value) (string, error) { return v.String(), nil }
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		return func(v reflect.Value) (string, error) { return strconv.FormatInt(v.Int(), 10), nil }
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Uintptr:
		return func(v reflect.Value) (string, error) { return strconv.FormatUint(v.Uint(), 10), nil }
	case reflect.Bool:
		return func(v reflect.Value) (string, error) { return strconv.FormatBool(v.Bool()), nil }
	case reflect.Float32, reflect.Float64:
		bits := t.Bits()
		return func(v reflect.Value) (string, error) { return formatFloat(v.Float(), bits), nil }
	}
	return formatCell
}

// formatCell formats any value as a cell.
func formatCell(v reflect.Value) (string, error) {
	for v.Kind() == reflect.Pointer || v.Kind() == reflect.Interface {
		if v.IsNil() {
			return "", nil
		}
		v = v.Elem()
	}
	if !v.IsValid() {
		return "", nil
	}
	if v.Type().Implements(textMarshaler) {
		b, err := v.Interface().(encoding.TextMarshaler).MarshalText()
		return string(b), err
	}
	switch v.Kind() {
	case reflect.String:
		return v.String(), nil
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		return strconv.FormatInt(v.Int(), 10), nil
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Uintptr:
		return strconv.FormatUint(v.Uint(), 10), nil
	case reflect.Bool:
		return strconv.FormatBool(v.Bool()), nil
	case reflect.Float32, reflect.Float64:
		return formatFloat(v.Float(), v.Type().Bits()), nil
	case reflect.Slice:
		if v.Type().Elem().Kind() == reflect.Uint8 {
			return base64.StdEncoding.EncodeToString(v.Bytes()), nil
		}
	case reflect.Complex64, reflect.Complex128, reflect.Chan, reflect.Func, reflect.UnsafePointer:
		return "", fmt.Errorf("a %s cannot be written to CSV", v.Type())
	}
	b, err := json.Marshal(v.Interface())
	if err != nil {
		return "", err
	}
	return string(b), nil
}

// formatFloat writes a float the way encoding/json does: the shortest
// text that reads back equal, without an exponent for ordinary sizes.
func formatFloat(f float64, bits int) string {
	if math.IsInf(f, 0) || math.IsNaN(f) {
		return strconv.FormatFloat(f, 'g', -1, bits)
	}
	abs := math.Abs(f)
	if abs != 0 && (abs < 1e-6 || abs >= 1e21) {
		return strconv.FormatFloat(f, 'e', -1, bits)
	}
	return strconv.FormatFloat(f, 'f', -1, bits)
}
