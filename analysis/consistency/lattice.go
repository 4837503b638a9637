package consistency

import (
	"fmt"
	"strings"
)

// DefaultModels is the model Elle checks when none is given
// (elle.txn prohibited-anomaly-types): strict serializability.
var DefaultModels = []string{"strict-serializable"}

// ProhibitedBy returns every anomaly type that makes a history invalid under
// all of the given models (Elle's anomalies-prohibited-by,
// consistency_model.clj 554-566): the types the models and every model they
// imply proscribe directly, and every type that implies one of those. No
// models prohibit nothing. Unknown model names are an error (see
// ParseModels).
func ProhibitedBy(models []string) (Set, error) {
	ms, err := ImpliedModels(models)
	if err != nil {
		return nil, err
	}
	var direct []string
	for _, m := range ms.Sorted() {
		direct = append(direct, proscribed.next(m, out)...)
	}
	return AnomaliesImplying(direct...), nil
}

// Prohibited returns the anomaly types that make a history invalid when the
// given models must hold and, besides, none of the given anomaly types (and
// so none that imply them) may occur: Elle's prohibited-anomaly-types
// (elle.txn, `:consistency-models` and `:anomalies`). It does not apply
// Elle's default: pass DefaultModels for that. An unknown model or anomaly
// name is an error listing the known ones.
func Prohibited(models, anomalies []string) (Set, error) {
	for _, a := range anomalies {
		if !Known(strings.TrimPrefix(a, ":")) {
			return nil, fmt.Errorf("unknown anomaly type %q; known types are: %s",
				a, strings.Join(allAnomalies, ", "))
		}
	}
	p, err := ProhibitedBy(models)
	if err != nil {
		return nil, err
	}
	extra := make([]string, len(anomalies))
	for i, a := range anomalies {
		extra[i] = strings.TrimPrefix(a, ":")
	}
	for a := range AnomaliesImplying(extra...) {
		p.add(a)
	}
	return p, nil
}

// Reportable returns the anomaly types Elle reports for these options: the
// prohibited ones plus EmptyTransactionGraph and CycleSearchTimeout, which
// make the verdict unknown rather than invalid (elle.txn
// reportable-anomaly-types). Elle drops every other type it found from
// `:anomaly-types` (though not from the boundary; see Boundary).
func Reportable(models, anomalies []string) (Set, error) {
	p, err := Prohibited(models, anomalies)
	if err != nil {
		return nil, err
	}
	for _, u := range unknownTypes {
		p.add(u)
	}
	return p, nil
}

// ImpossibleModels returns the canonical names of the models that cannot
// hold in a history with the given anomaly types (Elle's
// anomalies->impossible-models, consistency_model.clj 568-579): the models
// directly proscribing any of the types or a type they imply, and every
// model implying one of those. Names Elle's lattice does not know (such as
// EmptyTransactionGraph) rule out nothing.
func ImpossibleModels(types []string) Set {
	var direct []string
	for _, a := range ImpliedAnomalies(types...).Sorted() {
		direct = append(direct, proscribed.next(a, in)...)
	}
	return impossibleModels(direct)
}

// Boundary returns Elle's friendly-boundary (consistency_model.clj
// 588-606) for the anomaly types found: not is the weakest models they rule
// out (none of them implies another), alsoNot every other model they rule
// out, each under the name Elle prints (Friendly) and sorted in byte order,
// which is Elle's order too (it prints sorted sets of keywords). Both are
// empty when nothing is ruled out.
//
// Elle computes it over every anomaly type it found, reportable or not;
// callers that want Elle's `:not` must pass the same.
func Boundary(types []string) (not, alsoNot []string) {
	impossible := ImpossibleModels(types)
	weak := weakest(impossible)
	ns, as := Set{}, Set{}
	for m := range impossible {
		if weak.Has(m) {
			ns.add(Friendly(m))
		} else {
			as.add(Friendly(m))
		}
	}
	return ns.Sorted(), as.Sorted()
}
