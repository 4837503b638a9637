// Package samples embeds example histories: the one `hindsight demo` checks.
package samples

import (
	"bytes"
	_ "embed"
	"io"
)

//go:embed queue-sample.edn
var queue []byte

// QueueName is the name the embedded queue sample is reported under.
const QueueName = "sample:queue-sample.edn"

// QueueReader returns a reader over the embedded queue sample history.
func QueueReader() io.Reader { return bytes.NewReader(queue) }
