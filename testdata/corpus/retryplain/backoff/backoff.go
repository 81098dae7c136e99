// Package backoff retries an operation, as general-purpose retry libraries
// do: it imports no database API, so it is not analysed, and its callers
// apply the operation they pass it as if it ran in their place.
package backoff

import "time"

// Retry runs op until it succeeds or has been tried attempts times.
func Retry(op func() error, attempts int) error {
	var err error
	for i := range attempts {
		if err = op(); err == nil {
			return nil
		}
		time.Sleep(time.Duration(i) * 10 * time.Millisecond)
	}
	return err
}

// Later runs op after the caller returns: nothing of op's runs in the
// caller's place, but a function of another package cannot say so.
func Later(op func()) { go op() }
