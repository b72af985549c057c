package agent

import (
	"bytes"
	"encoding/json"
)

// marshalNoEscape is json.Marshal without HTML escaping, so text with < > &
// reads in a transcript as the model wrote it.
func marshalNoEscape(v any) ([]byte, error) {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return nil, err
	}
	return bytes.TrimSuffix(b.Bytes(), []byte("\n")), nil
}
