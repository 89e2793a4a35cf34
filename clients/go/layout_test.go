package idmint

import (
	"errors"
	"strconv"
	"strings"
	"testing"
	"time"
)

// decodeTable holds IDs decoded by the Java Layout: `idmint decode --layout SPEC --format
// decimal ID…` (idmint-server's CLI over io.idmint.Layout), for every preset and some custom
// and overridden specs.
var decodeTable = []struct {
	spec                                string
	id                                  string
	timestampMs                         int64
	datacenter, worker, shard, sequence int64
}{
	{"snowflake", "1", 1767225600000, 0, 0, 0, 1},
	{"snowflake", "9223372036854775807", 3966248855551, 31, 31, 0, 4095},
	{"snowflake", "5638533944831998365", 3111556851342, 24, 23, 0, 2461},
	{"snowflake", "6870414715053953623", 3405260114201, 20, 5, 0, 599},
	{"snowflake", "5898696213995476702", 3173584369892, 18, 5, 0, 1758},
	{"snowflake", "120579914624667648", 1795974091913, 0, 1, 0, 0},
	{"region", "1", 1767225600000, 0, 0, 0, 1},
	{"region", "9223372036854775807", 3966248855551, 7, 1023, 0, 511},
	{"region", "5557037129785761961", 3092126496498, 1, 176, 0, 169},
	{"region", "4904829534035186073", 2936628088240, 0, 392, 0, 409},
	{"region", "5475872114691066478", 3072775248926, 4, 101, 0, 110},
	{"region", "120579914624667648", 1795974091913, 0, 8, 0, 0},
	{"instagram", "1", 1767225600000, 0, 0, 0, 1},
	{"instagram", "9223372036854775807", 3966248855551, 0, 0, 8191, 511},
	{"instagram", "6757604014348085387", 3378363947231, 0, 0, 7252, 139},
	{"instagram", "8481073399773350134", 3789271069230, 0, 0, 164, 246},
	{"instagram", "8754908156551678944", 3854558362849, 0, 0, 5989, 480},
	{"instagram", "120579914624667648", 1795974091913, 0, 0, 8, 0},
	{"sonyflake", "1", 1767225600000, 0, 1, 0, 0},
	{"sonyflake", "9223372036854775807", 7264783738870, 0, 65535, 0, 255},
	{"sonyflake", "7177542398901886380", 6045374250460, 0, 7596, 0, 218},
	{"sonyflake", "6084283256596474813", 5393741022220, 0, 11197, 0, 74},
	{"sonyflake", "8509615854705001338", 6839351901940, 0, 17274, 0, 185},
	{"sonyflake", "120579914624667648", 1839096829780, 0, 4096, 0, 64},
	{"uid-generator", "1", 1767225600000, 0, 0, 0, 1},
	{"uid-generator", "9223372036854775807", 2035661055000, 0, 4194303, 0, 8191},
	{"uid-generator", "7174596789001693302", 1976033848000, 0, 2275541, 0, 2166},
	{"uid-generator", "6597604941723697456", 1959241175000, 0, 2702956, 0, 304},
	{"uid-generator", "5554409445601775481", 1928880190000, 0, 3322200, 0, 3961},
	{"uid-generator", "120579914624667648", 1770734937000, 0, 1643008, 0, 4096},
	{"js-safe", "1", 1767225600000, 0, 0, 0, 1},
	{"js-safe", "9007199254740991", 3966248855551, 0, 31, 0, 127},
	{"js-safe", "7925679643308305", 3702205981667, 0, 2, 0, 17},
	{"js-safe", "7736997452081047", 3656140993574, 0, 15, 0, 23},
	{"js-safe", "7601679142052883", 3623104296790, 0, 8, 0, 19},
	{"leaf", "1", 1288834974657, 0, 0, 0, 1},
	{"leaf", "9223372036854775807", 3487858230208, 0, 1023, 0, 4095},
	{"leaf", "7051460348339931651", 2970034131499, 0, 220, 0, 2563},
	{"leaf", "5012445576288007551", 2483895126779, 0, 511, 0, 1407},
	{"leaf", "8849132585797792720", 3398632592044, 0, 251, 0, 976},
	{"leaf", "120579914624667648", 1317583466570, 0, 1, 0, 0},
	{"twitter", "1", 1288834974657, 0, 0, 0, 1},
	{"twitter", "9223372036854775807", 3487858230208, 31, 31, 0, 4095},
	{"twitter", "5763004145326243461", 2662842234342, 3, 3, 0, 3717},
	{"twitter", "5338489542752575763", 2561630065988, 19, 26, 0, 275},
	{"twitter", "7315778326345451761", 3033052448246, 9, 8, 0, 2289},
	{"twitter", "120579914624667648", 1317583466570, 0, 1, 0, 0},
	{"discord", "1", 1420070400000, 0, 0, 0, 1},
	{"discord", "9223372036854775807", 3619093655551, 31, 31, 0, 4095},
	{"discord", "15894360805716054721", 5209581319026, 12, 13, 0, 705},
	{"discord", "12770470406797482431", 4464787808847, 6, 21, 0, 2495},
	{"discord", "10506438140252574192", 3925000452817, 15, 13, 0, 496},
	{"discord", "120579914624667648", 1448818891913, 0, 1, 0, 0},
	{"sonyflake-2014", "1", 1409529600000, 0, 1, 0, 0},
	{"sonyflake-2014", "9223372036854775807", 6907087738870, 0, 65535, 0, 255},
	{"sonyflake-2014", "8117731641505037008", 6248074708730, 0, 15056, 0, 219},
	{"sonyflake-2014", "8793657918678976313", 6650958165190, 0, 18233, 0, 41},
	{"sonyflake-2014", "6111905263124849729", 5052509021090, 0, 42049, 0, 101},
	{"sonyflake-2014", "120579914624667648", 1481400829780, 0, 4096, 0, 64},
	{"uid-generator-2016", "1", 1463673600000, 0, 0, 0, 1},
	{"uid-generator-2016", "9223372036854775807", 1732109055000, 0, 4194303, 0, 8191},
	{"uid-generator-2016", "7888479886267133448", 1693258581000, 0, 718369, 0, 3592},
	{"uid-generator-2016", "5270257936804193707", 1617058293000, 0, 1912621, 0, 1451},
	{"uid-generator-2016", "6869668273163079124", 1663607260000, 0, 3003712, 0, 3540},
	{"uid-generator-2016", "120579914624667648", 1467182937000, 0, 1643008, 0, 4096},
	{"time=41,worker=4,sequence=12", "1", 1767225600000, 0, 0, 0, 1},
	{"time=41,worker=4,sequence=12", "144115188075855871", 3966248855551, 0, 15, 0, 4095},
	{"time=41,worker=4,sequence=12", "138676308481982191", 3883258139092, 0, 11, 0, 3823},
	{"time=41,worker=4,sequence=12", "110961173211643383", 3460358736163, 0, 15, 0, 3575},
	{"time=41,worker=4,sequence=12", "103707476722205241", 3349676111508, 0, 4, 0, 569},
	{"time=41,worker=4,sequence=12,tick=10ms,epoch=2020-01-01T00:00:00.5Z", "1", 1577836800500, 0, 0, 0, 1},
	{"time=41,worker=4,sequence=12,tick=10ms,epoch=2020-01-01T00:00:00.5Z", "144115188075855871", 23568069356010, 0, 15, 0, 4095},
	{"time=41,worker=4,sequence=12,tick=10ms,epoch=2020-01-01T00:00:00.5Z", "118791660112109871", 19704005640840, 0, 14, 0, 303},
	{"time=41,worker=4,sequence=12,tick=10ms,epoch=2020-01-01T00:00:00.5Z", "80119104956526137", 13803042024570, 0, 14, 0, 3641},
	{"time=41,worker=4,sequence=12,tick=10ms,epoch=2020-01-01T00:00:00.5Z", "129871531688953852", 21394659873150, 0, 8, 0, 2044},
	{"time=30,dc=2,machine=3,shard=4,seq=10,tick=1s,epoch=1000", "1", 1000, 0, 0, 0, 1},
	{"time=30,dc=2,machine=3,shard=4,seq=10,tick=1s,epoch=1000", "562949953421311", 1073741824000, 3, 7, 15, 1023},
	{"time=30,dc=2,machine=3,shard=4,seq=10,tick=1s,epoch=1000", "318734967941790", 607938706000, 1, 2, 10, 670},
	{"time=30,dc=2,machine=3,shard=4,seq=10,tick=1s,epoch=1000", "401172771814103", 765176338000, 3, 2, 14, 727},
	{"time=30,dc=2,machine=3,shard=4,seq=10,tick=1s,epoch=1000", "562518976812053", 1072919802000, 1, 3, 5, 21},
	{"snowflake,epoch=2020-01-01T00:00:00Z", "1", 1577836800000, 0, 0, 0, 1},
	{"snowflake,epoch=2020-01-01T00:00:00Z", "9223372036854775807", 3776860055551, 31, 31, 0, 4095},
	{"snowflake,epoch=2020-01-01T00:00:00Z", "5929443838634971305", 2991526374869, 27, 21, 0, 169},
	{"snowflake,epoch=2020-01-01T00:00:00Z", "5899548447355121630", 2984398758159, 7, 18, 0, 4062},
	{"snowflake,epoch=2020-01-01T00:00:00Z", "8563290554436644217", 3619484366422, 19, 22, 0, 3449},
	{"snowflake,epoch=2020-01-01T00:00:00Z", "120579914624667648", 1606585291913, 0, 1, 0, 0},
	{"sonyflake,tick=20ms", "1", 1767225600000, 0, 1, 0, 0},
	{"sonyflake,tick=20ms", "9223372036854775807", 12762341877740, 0, 65535, 0, 255},
	{"sonyflake,tick=20ms", "7950513928704826519", 11244976770040, 0, 7319, 0, 63},
	{"sonyflake,tick=20ms", "5887571143922982896", 8785757332460, 0, 40944, 0, 94},
	{"sonyflake,tick=20ms", "9163566230059110568", 12691047800360, 0, 20648, 0, 112},
	{"sonyflake,tick=20ms", "120579914624667648", 1910968059560, 0, 4096, 0, 64},
}

func TestDecodeMatchesJavaLayout(t *testing.T) {
	for _, row := range decodeTable {
		l, err := ParseLayout(row.spec)
		if err != nil {
			t.Fatalf("%s: %v", row.spec, err)
		}
		var id int64
		if n, err := strconv.ParseInt(row.id, 10, 64); err == nil {
			id = n
		} else {
			u, err := strconv.ParseUint(row.id, 10, 64)
			if err != nil {
				t.Fatal(err)
			}
			id = int64(u)
		}
		p, err := l.Decode(id)
		if err != nil {
			t.Fatalf("%s %s: %v", row.spec, row.id, err)
		}
		want := Parts{ID: id, TimestampMs: row.timestampMs, Datacenter: int(row.datacenter),
			Worker: int(row.worker), Shard: int(row.shard), Sequence: row.sequence}
		if p != want {
			t.Errorf("%s %s: got %+v, want %+v", row.spec, row.id, p, want)
		}
	}
}

// IDs of a real `idmint serve` (snowflake), decoded by its GET /v1/id/decode.
func TestDecodeMatchesServer(t *testing.T) {
	for _, c := range []struct {
		id, timestamp    string
		worker, sequence int64
	}{
		{"120579914624667648", "2026-11-29T17:41:31.913Z", 1, 0},
		{"120580959916523520", "2026-11-29T17:45:41.130Z", 0, 0},
		{"120580959916525020", "2026-11-29T17:45:41.130Z", 0, 1500},
		{"120580959916527519", "2026-11-29T17:45:41.130Z", 0, 3999},
	} {
		id, _ := strconv.ParseInt(c.id, 10, 64)
		l, _ := ParseLayout("snowflake")
		p, err := l.Decode(id)
		if err != nil {
			t.Fatal(err)
		}
		ts, _ := time.Parse(time.RFC3339Nano, c.timestamp)
		if p.TimestampMs != ts.UnixMilli() || p.Datacenter != 0 || int64(p.Worker) != c.worker ||
			p.Sequence != c.sequence || !p.Time().Equal(ts) {
			t.Errorf("%s: %+v, want %s worker %d sequence %d", c.id, p, c.timestamp, c.worker,
				c.sequence)
		}
	}
}

func TestPresetSpecs(t *testing.T) {
	want := map[string]string{
		"snowflake":          "time=41,datacenter=5,worker=5,sequence=12,tick=1ms,epoch=2026-01-01T00:00:00Z",
		"leaf":               "time=41,worker=10,sequence=12,tick=1ms,epoch=2010-11-04T01:42:54.657Z",
		"discord":            "time=42,datacenter=5,worker=5,sequence=12,tick=1ms,epoch=2015-01-01T00:00:00Z",
		"sonyflake":          "time=39,sequence=8,worker=16,tick=10ms,epoch=2026-01-01T00:00:00Z",
		"uid-generator-2016": "time=28,worker=22,sequence=13,tick=1s,epoch=2016-05-19T16:00:00Z",
	}
	for name, spec := range want {
		l, err := ParseLayout(name)
		if err != nil {
			t.Fatal(err)
		}
		if l.Spec() != spec || l.Name() != name {
			t.Errorf("%s: %s %s", name, l.Name(), l.Spec())
		}
		// A custom spec equal to a preset is the preset.
		same, err := ParseLayout(spec)
		if err != nil || same.Name() != name {
			t.Errorf("%s: %v %v", spec, same, err)
		}
	}
	if len(Presets()) != 11 {
		t.Errorf("%d presets", len(Presets()))
	}
	l, _ := ParseLayout("discord")
	if !l.Unsigned() || l.TotalBits() != 64 {
		t.Error("discord is all 64 bits")
	}
	custom, err := ParseLayout(" Time=41, worker=4 ,sequence=12,shard=0 ")
	if err != nil || custom.Name() != "custom" ||
		custom.Spec() != "time=41,worker=4,sequence=12,tick=1ms,epoch=2026-01-01T00:00:00Z" ||
		custom.Shift(Worker) != 12 || custom.Bits(Shard) != 0 || custom.TotalBits() != 57 {
		t.Errorf("%v %v", custom, err)
	}
}

func TestMalformedLayoutsNameThePart(t *testing.T) {
	for spec, part := range map[string]string{
		"":                                      "empty",
		"nope":                                  "unknown layout preset 'nope'",
		"snowflake,worker=3":                    "not 'worker=3'",
		"snowflake,tick=1ms,tick=2ms":           "tick given twice",
		"snowflake,tick=0ms":                    "tick '0ms' must be between 1ms and one day",
		"time=41,worker=4":                      "needs a 'sequence' field",
		"worker=4,time=41,sequence=12":          "'time' must be the first",
		"time=0,sequence=12":                    "needs a 'time' field",
		"time=41,worker=x,sequence=12":          "width of 'worker' is not a whole number: 'x'",
		"time=41,worker=64,sequence=12":         "width of 'worker' must be 0..63, got 64",
		"time=20,worker=32,sequence=12":         "'worker' may be at most 31 bits wide, got 32",
		"time=50,worker=5,sequence=12":          "fields add up to 67 bits",
		"time=41,color=3,sequence=12":           "unknown key 'color'",
		"time=41,sequence=12,tick=5":            "tick '5' needs a unit",
		"time=41,sequence=12,tick=xs":           "tick 'xs' is not a whole number",
		"time=41,sequence=12,epoch=yesterday":   "epoch 'yesterday' is neither",
		"time=41,sequence=12,worker=2,worker=3": "field 'worker' given twice",
		"time=41,,sequence=12":                  "expected key=value, got ''",
		"time=62,sequence=1,tick=1s":            "outlasts any representable date",
	} {
		_, err := ParseLayout(spec)
		if err == nil || !errors.Is(err, ErrInvalidArgument) || !strings.Contains(err.Error(), part) {
			t.Errorf("%q: %v, want it to say %q", spec, err, part)
		}
	}
}

func TestDecodeRefusesIDsOutsideTheLayout(t *testing.T) {
	l, _ := ParseLayout("js-safe")
	if _, err := l.Decode(1 << 53); err == nil || !errors.Is(err, ErrInvalidArgument) ||
		!strings.Contains(err.Error(), "53 bits") {
		t.Errorf("js-safe 2^53: %v", err)
	}
	s, _ := ParseLayout("snowflake")
	if _, err := s.Decode(-1); err == nil || !strings.Contains(err.Error(), "negative") {
		t.Errorf("snowflake -1: %v", err)
	}
}
