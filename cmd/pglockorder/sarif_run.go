package main

// runInfo is what the output formats say about the run itself, beside the
// findings: the tool's version and the packages left out of the analysis.
type runInfo struct {
	version string
	leftOut []leftOut
}

// SARIF 2.1.0's record of a run's execution (§3.20): whether the tool
// analysed everything, and why not.
type (
	sarifInvocation struct {
		ExecutionSuccessful        bool                `json:"executionSuccessful"`
		ToolExecutionNotifications []sarifNotification `json:"toolExecutionNotifications,omitempty"`
	}
	sarifNotification struct {
		Level      string                   `json:"level"`
		Message    sarifMessage             `json:"message"`
		Descriptor *sarifReportingDescRef   `json:"descriptor,omitempty"`
		Locations  []sarifNotificationPlace `json:"locations,omitempty"`
	}
	sarifReportingDescRef struct {
		ID string `json:"id"`
	}
	sarifNotificationPlace struct {
		LogicalLocations []sarifLogicalLocation `json:"logicalLocations"`
	}
	sarifLogicalLocation struct {
		FullyQualifiedName string `json:"fullyQualifiedName"`
		Kind               string `json:"kind"`
	}
)

// packageLeftOut is the descriptor id of the notification for a package
// the run could not analyse.
const packageLeftOut = "package-left-out"

// invocations describes the run for SARIF: one invocation, successful when
// no package was left out, with an error notification per package that
// was, naming it and its first error. Code scanning shows them as the
// tool's configuration errors, so that a partial analysis is never taken
// for a clean one.
func (i runInfo) invocations() []sarifInvocation {
	inv := sarifInvocation{ExecutionSuccessful: len(i.leftOut) == 0}
	for _, l := range i.leftOut {
		inv.ToolExecutionNotifications = append(inv.ToolExecutionNotifications, sarifNotification{
			Level:      "error",
			Message:    sarifMessage{Text: "package left out of the analysis: " + l.String()},
			Descriptor: &sarifReportingDescRef{ID: packageLeftOut},
			Locations: []sarifNotificationPlace{{LogicalLocations: []sarifLogicalLocation{{
				FullyQualifiedName: l.Pkg, Kind: "module",
			}}}},
		})
	}
	return []sarifInvocation{inv}
}
