// Package english holds the small helpers messages need to read as
// English wherever they are written.
package english

// Plural is one when n is 1, else many: "1 file", "2 files", "0 files".
func Plural(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}
