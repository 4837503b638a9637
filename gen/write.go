package gen

import "io"

// Write simulates a Kafka-like broker and its clients and writes the
// resulting history to w, one op per line, in cfg.Format. It streams: memory
// is the simulated logs (O(messages)) plus O(Concurrency × Keys); the history
// itself is never held. The output depends on cfg only. Cost: O(Ops) time,
// plus O(Keys) per assign.
func Write(w io.Writer, cfg Config) (Stats, error) {
	return simulate(w, cfg, Config.validate, newSim)
}

// WriteTxn simulates a transactional key-value store and Jepsen's
// list-append or rw-register clients (cfg.Workload) and writes the
// resulting history to w, one op per line, in cfg.Format. It streams: memory
// is the store (8 bytes per committed write, 16 with ReadLag) plus
// O(Concurrency); the history itself is never held. The output depends on
// cfg only. Cost: O(Txns × MaxTxnLen) plus the elements of the lists read.
func WriteTxn(w io.Writer, cfg TxnConfig) (TxnStats, error) {
	return simulate(w, cfg, TxnConfig.validate, newTsim)
}

// WriteAbort simulates Jepsen's abort workload against a Kafka-like broker
// (one producer and one consumer per client process, every poll a
// transaction) and writes the history to w, one op per line, in
// cfg.Format. The output depends on cfg only. Memory: 8 bytes per visible
// record.
func WriteAbort(w io.Writer, cfg AbortConfig) (AbortStats, error) {
	return simulate(w, cfg, AbortConfig.validate, newAsim)
}

// simulation is one of the three simulations, as simulate runs it: sim,
// tsim or asim, whose stats are S.
type simulation[S any] interface {
	run()
	finish() error
	result() S
}

// simulate validates cfg, builds the simulation of it that writes to w,
// runs it and returns its stats: Write, WriteTxn and WriteAbort.
func simulate[C, S any, P simulation[S]](w io.Writer, cfg C, validate func(C) (C, error), build func(io.Writer, C) P) (S, error) {
	cfg, err := validate(cfg)
	if err != nil {
		var none S
		return none, err
	}
	s := build(w, cfg)
	s.run()
	err = s.finish()
	return s.result(), err
}
