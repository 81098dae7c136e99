// Package retry runs a function again while it fails. It sends no SQL and
// is seen through export data; its tests send SQL, so its test variant is
// analysed.
package retry

// Do runs f until it succeeds, three times at most.
func Do(f func() error) error {
	var err error
	for range 3 {
		if err = f(); err == nil {
			return nil
		}
	}
	return err
}
