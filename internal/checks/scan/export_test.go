package scan

// ScanUnfiltered is Scan without the cheap literal tests that rule
// sentences out before the regular expressions run: the tests check that
// those tests drop no finding.
func ScanUnfiltered(servers ...Server) *Report { return scan(true, servers...) }
