package idmint

import (
	"fmt"
	"math"
	"strconv"
	"strings"
	"time"
)

// Epochs of the presets.
const (
	// DefaultEpochMillis is 2026-01-01T00:00:00Z, the epoch of idmint's own presets and of
	// custom layouts.
	DefaultEpochMillis int64 = 1767225600000
	// TwitterEpochMillis is 2010-11-04T01:42:54.657Z, the epoch of Twitter Snowflake and
	// Meituan Leaf.
	TwitterEpochMillis int64 = 1288834974657
)

// Field is a field of an ID.
type Field int

// The fields an ID may have.
const (
	Time Field = iota
	Datacenter
	Worker
	Shard
	Sequence
	numFields
)

var fieldKeys = [numFields]string{"time", "datacenter", "worker", "shard", "sequence"}

// String is the field's key in a layout spec.
func (f Field) String() string {
	if f < 0 || f >= numFields {
		return "Field(" + strconv.Itoa(int(f)) + ")"
	}
	return fieldKeys[f]
}

// Layout is the bit layout of IDs: the fields, their widths from the most significant
// down, the length of one time tick and the epoch (the Java Layout, docs/configuration.md
// "Layouts"). Make one with ParseLayout.
type Layout struct {
	name        string
	order       []Field
	width       [numFields]int
	shift       [numFields]int
	totalBits   int
	tickMillis  int64
	epochMillis int64
}

// Parts are the fields of one ID.
type Parts struct {
	ID int64
	// TimestampMs is the Unix time, in milliseconds, of the start of the ID's tick.
	TimestampMs int64
	Datacenter  int
	Worker      int
	Shard       int
	Sequence    int64
}

// Time is TimestampMs as a time.Time.
func (p Parts) Time() time.Time { return time.UnixMilli(p.TimestampMs).UTC() }

var presetSpecs = []struct{ name, spec string }{
	{"snowflake", "time=41,datacenter=5,worker=5,sequence=12"},
	{"region", "time=41,datacenter=3,worker=10,sequence=9"},
	{"instagram", "time=41,shard=13,sequence=9"},
	{"sonyflake", "time=39,sequence=8,worker=16,tick=10ms"},
	{"uid-generator", "time=28,worker=22,sequence=13,tick=1s"},
	{"js-safe", "time=41,worker=5,sequence=7"},
	{"leaf", "time=41,worker=10,sequence=12,epoch=" + strconv.FormatInt(TwitterEpochMillis, 10)},
	{"twitter", "time=41,datacenter=5,worker=5,sequence=12,epoch=" +
		strconv.FormatInt(TwitterEpochMillis, 10)},
	{"discord", "time=42,datacenter=5,worker=5,sequence=12,epoch=2015-01-01T00:00:00Z"},
	{"sonyflake-2014", "time=39,sequence=8,worker=16,tick=10ms,epoch=2014-09-01T00:00:00Z"},
	{"uid-generator-2016", "time=28,worker=22,sequence=13,tick=1s,epoch=1463673600000"},
}

var presets = func() []*Layout {
	out := make([]*Layout, len(presetSpecs))
	for i, p := range presetSpecs {
		l, err := parseFields(p.spec, p.name)
		if err != nil {
			panic(err)
		}
		out[i] = l
	}
	return out
}()

// Presets returns the preset layouts, in the order the docs list them.
func Presets() []*Layout {
	return append([]*Layout(nil), presets...)
}

// ParseLayout reads a layout spec: a preset name (snowflake, region, instagram, sonyflake,
// uid-generator, js-safe, leaf, twitter, discord, sonyflake-2014, uid-generator-2016),
// optionally followed by ",epoch=…" or ",tick=…"; or a custom list of fields from the most
// significant down, such as "time=41,worker=4,sequence=12,tick=1ms,epoch=2026-01-01T00:00:00Z"
// (tick 1ms and epoch 2026-01-01T00:00:00Z by default; epoch as an RFC 3339 instant or Unix
// milliseconds). A malformed spec is an error wrapping ErrInvalidArgument that names the part.
func ParseLayout(spec string) (*Layout, error) {
	trimmed := strings.TrimSpace(spec)
	if trimmed == "" {
		return nil, invalidf("layout spec is empty; use a preset name such as 'snowflake' " +
			"or fields such as 'time=41,datacenter=5,worker=5,sequence=12'")
	}
	head := strings.ToLower(strings.TrimSpace(strings.SplitN(trimmed, ",", 2)[0]))
	if strings.Contains(head, "=") {
		return asPreset(parseFields(trimmed, ""))
	}
	var base *Layout
	for _, p := range presets {
		if p.name == head {
			base = p
		}
	}
	if base == nil {
		names := make([]string, len(presets))
		for i, p := range presets {
			names[i] = p.name
		}
		return nil, invalidf("unknown layout preset '%s'; presets are %s", head,
			strings.Join(names, ", "))
	}
	rest := ""
	if i := strings.Index(trimmed, ","); i >= 0 {
		rest = trimmed[i+1:]
	}
	if strings.TrimSpace(rest) == "" {
		return base, nil
	}
	overrides := map[string]string{}
	for _, part := range strings.Split(rest, ",") {
		kv := strings.SplitN(part, "=", 2)
		key := strings.ToLower(strings.TrimSpace(kv[0]))
		if len(kv) != 2 || (key != "tick" && key != "epoch") {
			return nil, invalidf("layout '%s': a preset takes only 'epoch=' and 'tick=' after "+
				"its name, not '%s'; write all fields instead to change widths", spec,
				strings.TrimSpace(part))
		}
		if _, dup := overrides[key]; dup {
			return nil, invalidf("layout '%s': %s given twice", spec, key)
		}
		overrides[key] = strings.TrimSpace(kv[1])
	}
	var fields strings.Builder
	for _, f := range base.order {
		fmt.Fprintf(&fields, "%s=%d,", f, base.width[f])
	}
	tick, ok := overrides["tick"]
	if !ok {
		tick = formatTick(base.tickMillis)
	}
	epoch, ok := overrides["epoch"]
	if !ok {
		epoch = strconv.FormatInt(base.epochMillis, 10)
	}
	fmt.Fprintf(&fields, "tick=%s,epoch=%s", tick, epoch)
	l, err := parseFields(fields.String(), "")
	if err != nil {
		return nil, invalidf("%s", strings.TrimPrefix(
			strings.ReplaceAll(err.Error(), fields.String(), spec), "idmint: "))
	}
	return asPreset(l, nil)
}

func parseFields(spec, presetName string) (*Layout, error) {
	var order []Field
	widths := map[Field]int{}
	tick := int64(1)
	epoch := DefaultEpochMillis
	tickSeen, epochSeen := false, false
	for _, raw := range strings.Split(spec, ",") {
		part := strings.TrimSpace(raw)
		eq := strings.Index(part, "=")
		if eq <= 0 {
			return nil, invalidf("layout '%s': expected key=value, got '%s'", spec, part)
		}
		key := strings.ToLower(strings.TrimSpace(part[:eq]))
		value := strings.TrimSpace(part[eq+1:])
		switch key {
		case "tick":
			if tickSeen {
				return nil, invalidf("layout '%s': tick given twice", spec)
			}
			tickSeen = true
			t, err := parseTick(spec, value)
			if err != nil {
				return nil, err
			}
			tick = t
		case "epoch":
			if epochSeen {
				return nil, invalidf("layout '%s': epoch given twice", spec)
			}
			epochSeen = true
			e, err := parseEpoch(spec, value)
			if err != nil {
				return nil, err
			}
			epoch = e
		default:
			f, err := fieldOf(spec, key)
			if err != nil {
				return nil, err
			}
			if _, dup := widths[f]; dup {
				return nil, invalidf("layout '%s': field '%s' given twice", spec, f)
			}
			w, err := strconv.ParseInt(value, 10, 32)
			if err != nil {
				return nil, invalidf("layout '%s': width of '%s' is not a whole number: '%s'",
					spec, f, value)
			}
			if w < 0 || w > 63 {
				return nil, invalidf("layout '%s': width of '%s' must be 0..63, got %d",
					spec, f, w)
			}
			widths[f] = int(w)
			order = append(order, f)
		}
	}
	return validated(spec, presetName, order, widths, tick, epoch)
}

func validated(spec, presetName string, order []Field, widths map[Field]int, tick,
	epoch int64) (*Layout, error) {
	if widths[Time] == 0 {
		return nil, invalidf("layout '%s': needs a 'time' field of at least 1 bit", spec)
	}
	if order[0] != Time {
		return nil, invalidf("layout '%s': 'time' must be the first (most significant) "+
			"field, so that IDs sort by time", spec)
	}
	if _, ok := widths[Sequence]; !ok {
		return nil, invalidf("layout '%s': needs a 'sequence' field", spec)
	}
	total := 0
	for _, w := range widths {
		total += w
	}
	if total > 64 {
		return nil, invalidf("layout '%s': fields add up to %d bits; at most 64 fit in an ID "+
			"(63 for IDs that idmint mints, whose sign bit stays 0)", spec, total)
	}
	for f := Field(0); f < numFields; f++ {
		if f != Time && f != Sequence && widths[f] > 31 {
			return nil, invalidf("layout '%s': '%s' may be at most 31 bits wide, got %d",
				spec, f, widths[f])
		}
	}
	l := &Layout{name: presetName, tickMillis: tick, epochMillis: epoch}
	for _, f := range order {
		// Zero-width fields are dropped, so that equal layouts have one spec.
		if widths[f] > 0 || f == Sequence {
			l.order = append(l.order, f)
			l.width[f] = widths[f]
		}
	}
	bits := 0
	for i := len(l.order) - 1; i >= 0; i-- {
		f := l.order[i]
		l.shift[f] = bits
		bits += l.width[f]
	}
	l.totalBits = bits
	// As Java works it out, overflow included: the first tick that does not fit.
	ticks := l.maxValue(Time) + 1
	exhaustion := int64(math.MinInt64)
	if ticks <= (math.MaxInt64-epoch)/tick {
		exhaustion = epoch + ticks*tick
	}
	if exhaustion == math.MinInt64 {
		return nil, invalidf("layout '%s': the time field outlasts any representable date; "+
			"use fewer time bits or a shorter tick", spec)
	}
	return l, nil
}

// asPreset is the preset with l's spec, or l.
func asPreset(l *Layout, err error) (*Layout, error) {
	if err != nil {
		return nil, err
	}
	for _, p := range presets {
		if p.Spec() == l.Spec() {
			return p, nil
		}
	}
	return l, nil
}

func fieldOf(spec, key string) (Field, error) {
	switch key {
	case "time":
		return Time, nil
	case "datacenter", "dc", "region":
		return Datacenter, nil
	case "worker", "machine":
		return Worker, nil
	case "shard":
		return Shard, nil
	case "sequence", "seq":
		return Sequence, nil
	}
	return 0, invalidf("layout '%s': unknown key '%s'; keys are time, datacenter, worker, "+
		"shard, sequence, tick, epoch", spec, key)
}

func parseTick(spec, value string) (int64, error) {
	v := strings.ToLower(value)
	var factor int64
	var digits string
	switch {
	case strings.HasSuffix(v, "ms"):
		factor, digits = 1, v[:len(v)-2]
	case strings.HasSuffix(v, "s"):
		factor, digits = 1000, v[:len(v)-1]
	default:
		return 0, invalidf("layout '%s': tick '%s' needs a unit, e.g. 1ms, 10ms or 1s",
			spec, value)
	}
	n, err := strconv.ParseInt(digits, 10, 64)
	if err != nil {
		return 0, invalidf("layout '%s': tick '%s' is not a whole number of ms or s", spec, value)
	}
	if n < 1 || n > 86400000/factor {
		return 0, invalidf("layout '%s': tick '%s' must be between 1ms and one day", spec, value)
	}
	return n * factor, nil
}

func parseEpoch(spec, value string) (int64, error) {
	digits := value != ""
	for _, r := range value {
		if r < '0' || r > '9' {
			digits = false
		}
	}
	var millis int64
	if digits {
		n, err := strconv.ParseInt(value, 10, 64)
		if err != nil {
			return 0, epochError(spec, value)
		}
		millis = n
	} else {
		t, err := time.Parse(time.RFC3339Nano, value)
		if err != nil {
			return 0, epochError(spec, value)
		}
		millis = t.UnixMilli()
	}
	if millis < 0 {
		return 0, invalidf("layout '%s': epoch '%s' is before 1970", spec, value)
	}
	return millis, nil
}

func epochError(spec, value string) error {
	return invalidf("layout '%s': epoch '%s' is neither Unix milliseconds nor an ISO-8601 "+
		"instant such as 2026-01-01T00:00:00Z", spec, value)
}

func formatTick(ms int64) string {
	if ms%1000 == 0 {
		return strconv.FormatInt(ms/1000, 10) + "s"
	}
	return strconv.FormatInt(ms, 10) + "ms"
}

// Name is the preset's name, or "custom".
func (l *Layout) Name() string {
	if l.name == "" {
		return "custom"
	}
	return l.name
}

// Spec is the canonical spec: every field with a width from the most significant, then tick
// and epoch, e.g. "time=41,datacenter=5,worker=5,sequence=12,tick=1ms,epoch=2026-01-01T00:00:00Z".
func (l *Layout) Spec() string {
	var b strings.Builder
	for _, f := range l.order {
		fmt.Fprintf(&b, "%s=%d,", f, l.width[f])
	}
	epoch := time.UnixMilli(l.epochMillis).UTC().Format("2006-01-02T15:04:05.000Z")
	epoch = strings.Replace(epoch, ".000Z", "Z", 1)
	fmt.Fprintf(&b, "tick=%s,epoch=%s", formatTick(l.tickMillis), epoch)
	return b.String()
}

// String is the preset's name, or the spec of a custom layout.
func (l *Layout) String() string {
	if l.name == "" {
		return l.Spec()
	}
	return l.name
}

// Bits is the width of field f (0 when the layout has none).
func (l *Layout) Bits(f Field) int { return l.width[f] }

// Shift is the position of field f's least significant bit.
func (l *Layout) Shift(f Field) int { return l.shift[f] }

// TotalBits is the number of bits used in all; IDs are below 2^TotalBits.
func (l *Layout) TotalBits() int { return l.totalBits }

// Unsigned tells whether the layout uses all 64 bits (discord), so that its IDs read as
// unsigned numbers: Decode then takes any int64, its bits read as a uint64.
func (l *Layout) Unsigned() bool { return l.totalBits == 64 }

// TickMillis is the length of one time tick in milliseconds.
func (l *Layout) TickMillis() int64 { return l.tickMillis }

// EpochMillis is the Unix time in milliseconds of tick 0.
func (l *Layout) EpochMillis() int64 { return l.epochMillis }

func (l *Layout) maxValue(f Field) int64 {
	return int64(1)<<l.width[f] - 1
}

func (l *Layout) get(id int64, f Field) int64 {
	return int64(uint64(id)>>l.shift[f]) & l.maxValue(f)
}

// Decode splits an ID into its parts. It fails, wrapping ErrInvalidArgument, when the ID is
// negative (except for an Unsigned layout) or uses bits the layout has not.
func (l *Layout) Decode(id int64) (Parts, error) {
	if id < 0 && !l.Unsigned() {
		return Parts{}, invalidf("ID %d is negative; IDs of layout %s are positive", id,
			l.Name())
	}
	if l.totalBits < 63 && uint64(id)>>l.totalBits != 0 {
		return Parts{}, invalidf("ID %d uses more than the %d bits of layout %s", id,
			l.totalBits, l.Name())
	}
	return Parts{
		ID:          id,
		TimestampMs: l.epochMillis + l.get(id, Time)*l.tickMillis,
		Datacenter:  int(l.get(id, Datacenter)),
		Worker:      int(l.get(id, Worker)),
		Shard:       int(l.get(id, Shard)),
		Sequence:    l.get(id, Sequence),
	}, nil
}
