package analyzer

import "os"

// debugOut receives -debug messages.
var debugOut = os.Stderr
