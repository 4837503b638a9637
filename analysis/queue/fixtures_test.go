package queue

import (
	"encoding/json"
	"reflect"
	"slices"
	"strconv"
	"testing"

	"github.com/hindsight-dev/hindsight/analysis"
	"github.com/hindsight-dev/hindsight/internal/jsonsubset"
	"github.com/hindsight-dev/hindsight/internal/testhist"
	"github.com/hindsight-dev/hindsight/internal/testpaths"
	"github.com/hindsight-dev/hindsight/model"
)

// fixturesDir holds the queue specification fixtures (testdata/queue at
// the repository root).
var fixturesDir = testpaths.Testdata("queue")

type expected struct {
	Options       testhist.FixtureOptions                 `json:"options"`
	Valid         any                                     `json:"valid"`
	Anomalies     map[string][]map[string]json.RawMessage `json:"anomalies"`
	AnomalyTypes  []string                                `json:"anomaly_types"`
	BadTypes      []string                                `json:"bad_anomaly_types"`
	Undetermined  []string                                `json:"undetermined_types"`
	VersionOrders map[string]struct {
		ByPosition []json.RawMessage            `json:"by_position"`
		Log        map[string][]json.RawMessage `json:"log"`
	} `json:"version_orders"`
	RealtimeLag []struct {
		Time    int64           `json:"time"`
		Process int32           `json:"process"`
		Key     json.RawMessage `json:"key"`
		Lag     int64           `json:"lag"`
	} `json:"realtime_lag_ns"`
	WorstLag *struct {
		Lag int64 `json:"lag"`
	} `json:"worst_realtime_lag_ns"`
	UnseenSeries []struct {
		Time   int64            `json:"time"`
		Unseen map[string]int32 `json:"unseen"`
	} `json:"unseen_series"`
	UnseenFinal map[string][]json.RawMessage `json:"unseen_final_messages"`
}

func optionsFor(e *expected) Options {
	o := DefaultOptions()
	o.Series = true
	o.WWDeps = e.Options.WWDeps
	if e.Options.SubVia != nil {
		switch *e.Options.SubVia {
		case "assign":
			o.SubVia = SubAssign
		case "subscribe":
			o.SubVia = SubSubscribe
		}
	}
	return o
}

func canon(t *testing.T, v any) string {
	t.Helper()
	b, _ := json.Marshal(testhist.Plain(t, v))
	return string(b)
}

func without(s, drop []string) []string {
	var out []string
	for _, x := range s {
		if !slices.Contains(drop, x) {
			out = append(out, x)
		}
	}
	return out
}

func valueJSON(a model.Atom) string {
	b, _ := json.Marshal(analysis.AtomValue(a))
	return string(b)
}

// TestFixtures runs every pair in testdata/queue and compares the result
// with the expectation as the fixtures' README describes.
func TestFixtures(t *testing.T) {
	testhist.Fixtures(t, fixturesDir, func(t *testing.T, name string, e *expected, h *model.History, p model.Pairing) {
		c := check(h, p, optionsFor(e))
		res := c.res

		wantValid := map[any]analysis.Verdict{true: analysis.Valid, false: analysis.Invalid, "unknown": analysis.Unknown}[e.Valid]
		if res.Verdict != wantValid {
			t.Errorf("verdict %v, want %v (bad types %v, reasons %v)", res.Verdict, wantValid, res.BadTypes, res.UnknownReasons)
		}
		if got, want := without(res.AnomalyTypes, e.Undetermined), without(e.AnomalyTypes, e.Undetermined); !slices.Equal(got, want) {
			t.Errorf("anomaly types %v, want %v", got, want)
		}
		if got, want := without(res.BadTypes, e.Undetermined), without(e.BadTypes, e.Undetermined); !slices.Equal(got, want) {
			t.Errorf("bad types %v, want %v", got, want)
		}
		types := make([]string, 0, len(e.Anomalies))
		for typ := range e.Anomalies {
			types = append(types, typ)
		}
		slices.Sort(types)
		for _, typ := range types {
			want := e.Anomalies[typ]
			got := analysis.InstancesOf[*Instance](res, typ)
			if len(got) != len(want) {
				t.Errorf("%s: %d instances, want %d: %s", typ, len(got), len(want), canon(t, got))
				continue
			}
			for i, w := range want {
				var g map[string]json.RawMessage
				if err := json.Unmarshal([]byte(canon(t, got[i])), &g); err != nil {
					t.Fatal(err)
				}
				for field, wv := range w {
					if !subset(t, wv, g[field]) {
						t.Errorf("%s[%d].%s = %s, want %s (instance %s)", typ, i, field, g[field], wv, canon(t, got[i]))
					}
				}
			}
		}
		checkVersionOrders(t, c, e)
		checkSeries(t, c, e)
	})
}

func checkVersionOrders(t *testing.T, c *checker, e *expected) {
	for key, vo := range e.VersionOrders {
		k := keyByJSON(t, c.h, key)
		var got []string
		for _, m := range c.kept[k] {
			got = append(got, valueJSON(c.h.MsgValue(m)))
		}
		var want []string
		for _, v := range vo.ByPosition {
			want = append(want, canon(t, v))
		}
		if !slices.Equal(got, want) {
			t.Errorf("version order of %s: %v, want %v", key, got, want)
		}
	}
}

func keyByJSON(t *testing.T, h *model.History, key string) model.KeyID {
	t.Helper()
	for k, a := range h.Keys {
		if a.PlainText() == key || valueJSON(a) == key || strconv.Quote(a.PlainText()) == key {
			return model.KeyID(k)
		}
	}
	t.Fatalf("no key %s in history", key)
	return -1
}

func checkSeries(t *testing.T, c *checker, e *expected) {
	if e.RealtimeLag != nil {
		type sample struct {
			Time    int64
			Process int32
			Key     string
			Lag     int64
		}
		var got, want []sample
		for _, p := range c.res.Series.Lag.All() {
			got = append(got, sample{p.Time, p.Process, valueJSON(c.h.Keys[p.Key]), p.LagNS})
		}
		for _, s := range e.RealtimeLag {
			want = append(want, sample{s.Time, s.Process, canon(t, s.Key), s.Lag})
		}
		if !reflect.DeepEqual(got, want) {
			t.Errorf("realtime lag\n got %v\nwant %v", got, want)
		}
	}
	if e.WorstLag != nil {
		if got := int64(analysis.OwnOf[Stats](c.res.Stats).WorstLagS * 1e9); got != e.WorstLag.Lag {
			t.Errorf("worst lag %d ns, want %d", got, e.WorstLag.Lag)
		}
	}
	if e.UnseenSeries != nil {
		// replay the change points up to each sample's time
		for _, s := range e.UnseenSeries {
			state := map[string]int32{}
			for _, p := range c.res.Series.Unseen.All() {
				if p.Time <= s.Time {
					state[c.h.Keys[p.Key].PlainText()] = p.Count
				}
			}
			if !reflect.DeepEqual(state, s.Unseen) && !(len(state) == 0 && len(s.Unseen) == 0) {
				t.Errorf("unseen at time %d: %v, want %v", s.Time, state, s.Unseen)
			}
		}
	}
}

// subset reports whether want is contained in got (jsonsubset.Contains).
func subset(t *testing.T, want, got json.RawMessage) bool {
	if got == nil {
		return false
	}
	ok, err := jsonsubset.Contains(want, got)
	if err != nil {
		t.Fatal(err)
	}
	return ok
}
