package workload

import "github.com/hindsight-dev/hindsight/model"

func init() {
	register(&Workload{
		Name: "list-append",
		Doc:  "docs/list-append.md",
		Owns: func(m *model.Mop) bool { return m.Kind == model.MopAppend || m.Kind == model.MopReadList },
	})
	register(&Workload{
		Name: "rw-register",
		Doc:  "docs/rw-register.md",
		Owns: func(m *model.Mop) bool { return m.Kind == model.MopWrite || m.Kind == model.MopRead && m.Done },
	})
}
