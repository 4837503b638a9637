package abort

import (
	"strconv"
	"strings"

	"github.com/hindsight-dev/hindsight/model"
)

// EDN renders what the abort decoder read of the op at position i of h
// as the op's EDN again: its :value (a poll map, a topic name, a create
// map) and its other fields (", :rebalance-log {...}"), for a history
// written back out (hindsight shrink). ok is false when the decoder read
// nothing of the op. Keys come back as their EDN forms; what the decoder
// skipped (a poll map's other keys, an event's other keys) is left out.
func EDN(h *model.History, i int) (value, fields string, ok bool) {
	owner, mine := h.ExtOwnerOf(Workload)
	if !mine {
		return "", "", false
	}
	var f strings.Builder
	for _, r := range h.ExtAt(i) {
		if r.Owner != owner {
			continue
		}
		ws, ks := h.ExtWordsOf(&r), h.ExtKeysOf(&r)
		switch r.Kind {
		case recPoll:
			value, ok = pollEDN(h, ws, ks), true
		case recTopic:
			value, ok = h.Keys[ks[0]].String(), true
		case recCreate:
			value = "{:topic " + h.Keys[ks[0]].String()
			if len(ws) > 0 {
				value += ", :count " + strconv.FormatInt(ws[0], 10)
			}
			value, ok = value+"}", true
		case recRebalance:
			f.WriteString(", :rebalance-log ")
			f.WriteString(rebalanceEDN(h, ws, ks))
			ok = true
		}
	}
	if ok && value == "" {
		value = "nil"
	}
	return value, f.String(), ok
}

// pollEDN is a poll record as the map it was read from.
func pollEDN(h *model.History, ws []int64, ks []model.KeyID) string {
	var parts []string
	if ws[0]&pollTopic != 0 {
		parts = append(parts, ":topic "+h.Keys[ks[0]].String())
	}
	if ws[0]&pollAbort != 0 {
		parts = append(parts, ":abort? true")
	}
	if ws[0]&pollOffsets != 0 {
		offs := make([]string, len(ws)-1)
		for j, o := range ws[1:] {
			offs[j] = strconv.FormatInt(o, 10)
		}
		parts = append(parts, ":offsets ["+strings.Join(offs, " ")+"]")
	}
	return "{" + strings.Join(parts, ", ") + "}"
}

// rebalanceEDN is a rebalance record as the map it was read from: its
// events before and during the op, each with its :type and :keys.
func rebalanceEDN(h *model.History, ws []int64, ks []model.KeyID) string {
	var before, during []string
	k := 0
	for e := 2; e+1 < len(ws); e += 2 {
		flags, nkeys := ws[e], int(ws[e+1])
		var parts []string
		if flags&eventType != 0 {
			parts = append(parts, ":type "+h.Keys[ks[k]].String())
			k++
		}
		keys := make([]string, 0, nkeys)
		for range nkeys {
			keys = append(keys, h.Keys[ks[k]].String())
			k++
		}
		parts = append(parts, ":keys ["+strings.Join(keys, " ")+"]")
		ev := "{" + strings.Join(parts, ", ") + "}"
		if flags&eventDuring != 0 {
			during = append(during, ev)
		} else {
			before = append(before, ev)
		}
	}
	return "{:before [" + strings.Join(before, " ") + "], :during [" + strings.Join(during, " ") + "]}"
}
