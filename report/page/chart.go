package page

import (
	"cmp"
	"encoding/json"
	"math"
	"strconv"
	"strings"

	"github.com/hindsight-dev/hindsight/model"
)

// Num formats x with d decimals, trailing zeros dropped, as a JSON number.
func Num(x float64, d int) json.Number {
	s := strconv.FormatFloat(x, 'f', d, 64)
	if strings.IndexByte(s, '.') >= 0 {
		s = strings.TrimRight(strings.TrimRight(s, "0"), ".")
	}
	if s == "-0" {
		s = "0"
	}
	return json.Number(s)
}

// DecimalsFor returns how many decimals resolve about a millionth of m.
func DecimalsFor(m float64) int {
	if m <= 0 {
		return 3
	}
	return max(0, min(9, 6-int(math.Floor(math.Log10(m)))))
}

// JSONOption validates a go-echarts chart and returns its option object as
// JSON. encoding/json escapes <, > and & in strings, so the text is safe
// inside a script element as well.
func JSONOption(c interface {
	Validate()
	JSON() map[string]interface{}
}) json.RawMessage {
	c.Validate()
	b, err := json.Marshal(c.JSON())
	if err != nil {
		// Every value is built here from numbers and strings; a failure is
		// a bug, and an empty option shows as an empty chart.
		return json.RawMessage(`{}`)
	}
	return b
}

// CompareKeys orders keys for the page: keys with anomalies (ha, hc)
// first, then by key (model.Atom.Less), then by id.
func (b *Builder) CompareKeys(a, c model.KeyID, ha, hc bool) int {
	if ha != hc {
		if ha {
			return -1
		}
		return 1
	}
	ka, kc := b.H.Keys[a], b.H.Keys[c]
	switch {
	case ka.Less(kc):
		return -1
	case kc.Less(ka):
		return 1
	}
	return cmp.Compare(a, c)
}

// NiceRange widens [lo, hi] by about 5% of its width on each side, to
// multiples of a power of ten (at least minStep), so the labels at the
// axis ends stay round.
func NiceRange(lo, hi, minStep float64) (float64, float64) {
	w := hi - lo
	if w <= 0 {
		w = max(math.Abs(hi), 1)
	}
	step := max(minStep, math.Pow(10, math.Floor(math.Log10(w*0.05))))
	return math.Floor((lo-step/2)/step) * step, math.Ceil((hi+step/2)/step) * step
}

// KeyName renders a key as the history wrote it.
func (b *Builder) KeyName(k model.KeyID) string {
	if b.H == nil || int(k) >= len(b.H.Keys) || k < 0 {
		return "?"
	}
	return b.H.Keys[k].String()
}
