package loadgen

import (
	"context"
	"errors"
	"fmt"
	"sort"
	"sync"
	"sync/atomic"
	"time"

	"github.com/askback/askback/internal/bench/cpuuse"
)

// Limits on a run, whatever the options ask.
const (
	// MaxConcurrency bounds Options.Concurrency.
	MaxConcurrency = 1000
	// MaxDuration bounds a run, also one bounded by a number of flows.
	MaxDuration = time.Hour
	// MaxFlows bounds Options.Requests.
	MaxFlows = 10_000_000
	// DefaultDuration is the length of a run given neither a number of
	// flows nor a duration.
	DefaultDuration = 10 * time.Second
	// DefaultFlowTimeout bounds one flow unless Options.FlowTimeout says
	// otherwise.
	DefaultFlowTimeout = 30 * time.Second
	// maxSamples bounds the latencies kept for percentiles (per series);
	// later ones replace kept ones at random (reservoir sampling).
	maxSamples = 1 << 20
	// giveUpAfter is how many failed flows, with none completed, end a run
	// early.
	giveUpAfter = 50
	// maxErrorSamples is how many distinct error messages a report keeps.
	maxErrorSamples = 5
)

// Worker runs flows one after the other on its own connection.
type Worker interface {
	// Flow runs one flow and reports the duration of each round to r.
	Flow(ctx context.Context, r *Rounds) error
	// Close releases the worker's connection.
	Close() error
}

// Rounds collects the durations of the rounds of one flow, in order.
type Rounds struct{ d []time.Duration }

// Add records the duration of the next round.
func (r *Rounds) Add(d time.Duration) { r.d = append(r.d, d) }

// Options configure [Run].
type Options struct {
	// Concurrency is the number of workers, each running one flow at a
	// time (default 1, at most MaxConcurrency).
	Concurrency int
	// Requests is the number of flows to run; zero means as many as fit
	// in Duration.
	Requests int
	// Duration stops starting flows after this long (DefaultDuration when
	// Requests is zero too; MaxDuration at most).
	Duration time.Duration
	// FlowTimeout bounds each flow (DefaultFlowTimeout if zero).
	FlowTimeout time.Duration
	// Open makes a worker. It is called Concurrency times before the clock
	// starts. Required.
	Open func(ctx context.Context) (Worker, error)
	// Progress, if set, is called about ten times a second while the run
	// lasts, and once at the end, from a single goroutine.
	Progress func(Progress)
	// Now is the clock (time.Now if nil).
	Now func() time.Time
	// CPUTime reads the CPU time the tester's process has used so far
	// (cpuuse.Self if nil); the run reports what it used from the first
	// flow to the last.
	CPUTime func() (time.Duration, error)
}

// Progress is the state of a run, for a progress bar.
type Progress struct {
	Done, Failed int
	// Total is Options.Requests, or zero for a run bounded by time.
	Total    int
	Elapsed  time.Duration
	Duration time.Duration // the run's time bound
}

// Fraction is how far the run is, from 0 to 1.
func (p Progress) Fraction() float64 {
	f := 0.0
	if p.Total > 0 {
		f = float64(p.Done+p.Failed) / float64(p.Total)
	}
	if p.Duration > 0 {
		if g := float64(p.Elapsed) / float64(p.Duration); g > f {
			f = g
		}
	}
	return min(f, 1)
}

// Report is the outcome of a run.
type Report struct {
	Concurrency int
	// Flows and Failed count the flows that completed and that failed;
	// Interrupted the flows in flight when the run's context ended (Ctrl-C):
	// neither, as their servers did nothing wrong.
	Flows, Failed, Interrupted int
	Elapsed                    time.Duration
	// Throughput is completed flows per second.
	Throughput float64
	// Flow summarises the latency of completed flows, Rounds that of each
	// round of completed flows (Rounds[0] is round 1).
	Flow   Summary
	Rounds []Summary
	// Errors holds up to five distinct error messages of failed flows.
	Errors []string
	// Tester is what the run cost the tester itself.
	Tester Tester
	// Timeline is the run cut into slices of Interval each (the last one
	// shorter), from the first flow to the end: throughput and latency
	// over time.
	Interval time.Duration
	Timeline []Interval
}

// Tester is the CPU the tester's own process used during a run, next to
// the server's throughput: a load generator that shares its cores with the
// server takes that CPU from it.
type Tester struct {
	// CPU is the CPU time (user and system) the tester used from the first
	// flow to the last; Measured is false when it could not be read.
	CPU      time.Duration
	Measured bool
	// Cores is how many cores the tester may run on (0: unknown).
	Cores int
	// SharesCores is true when the server runs on this machine on some of
	// the tester's cores (or may: a loopback server whose cores are
	// unknown).
	SharesCores bool
}

// Share is the part of its cores' capacity over elapsed that the tester
// used: 0.5 is one core busy of two.
func (t Tester) Share(elapsed time.Duration) float64 {
	if !t.Measured || t.Cores <= 0 || elapsed <= 0 {
		return 0
	}
	return float64(t.CPU) / (float64(elapsed) * float64(t.Cores))
}

// PerFlow is the tester's CPU time per completed flow.
func (t Tester) PerFlow(flows int) time.Duration {
	if !t.Measured || flows <= 0 {
		return 0
	}
	return t.CPU / time.Duration(flows)
}

// Summary is the latency distribution of one series.
type Summary struct {
	Count                    int
	Mean, P50, P90, P99, Max time.Duration
	// Histogram counts every latency of the series (none sampled away) in
	// buckets ten a decade (1, 1.2, 1.5, 2, 2.5, 3, 4, 5, 6, 8 × 10^k),
	// from the first non-empty bucket to the last.
	Histogram []Bucket
	samples   []time.Duration
	seen      int
	hist      histogram
}

// ErrRunTooLong is the cause of a run that reached MaxDuration before its
// workers were all open.
var ErrRunTooLong = fmt.Errorf("the run reached its bound of %s while opening its workers", MaxDuration)

// Run runs the flows and returns the report. It fails only when a worker
// cannot be opened or the options are unusable; failed flows are counted.
func Run(ctx context.Context, opts Options) (*Report, error) {
	if err := opts.settle(); err != nil {
		return nil, err
	}
	// The whole run, opening the workers included, ends within
	// MaxDuration (and the time limit of the flows in flight then): a
	// server that lets each session open only just within its time limit
	// would otherwise hold a run of many workers for hours before the
	// first flow.
	end := opts.Now().Add(MaxDuration)
	workers, err := openWorkers(ctx, &opts, end)
	defer func() {
		for _, w := range workers {
			w.Close()
		}
	}()
	if err != nil {
		return nil, err
	}
	cpu0, cpuErr := opts.CPUTime()
	start := opts.Now()
	stop := start.Add(opts.Duration)
	if stop.After(end) {
		stop = end
	}
	runCtx, cancel := context.WithDeadline(ctx, stop)
	defer cancel()
	r := &run{opts: &opts, ctx: ctx, runCtx: runCtx, start: start,
		rep: &Report{Concurrency: opts.Concurrency}, rng: newRand(start.UnixNano()), tl: newTimeline(),
		cpu0: cpu0, cpuRead: cpu0, cpuOK: cpuErr == nil}
	var wg sync.WaitGroup
	for _, w := range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			r.work(w)
		}()
	}
	finished := make(chan struct{})
	go func() { wg.Wait(); close(finished) }()
	r.watch(finished)
	return r.report(), nil
}

// settle checks the options and fills in their defaults.
func (opts *Options) settle() error {
	if opts.Open == nil {
		return errors.New("loadgen: Options.Open is required")
	}
	if opts.Concurrency <= 0 {
		opts.Concurrency = 1
	}
	if opts.Concurrency > MaxConcurrency {
		return fmt.Errorf("concurrency %d is above the limit of %d", opts.Concurrency, MaxConcurrency)
	}
	if opts.Requests < 0 || opts.Requests > MaxFlows {
		return fmt.Errorf("the number of flows must be between 1 and %d", MaxFlows)
	}
	if opts.Duration < 0 || opts.Duration > MaxDuration {
		return fmt.Errorf("the duration must be positive and at most %s", MaxDuration)
	}
	if opts.Duration == 0 {
		opts.Duration = MaxDuration
		if opts.Requests == 0 {
			opts.Duration = DefaultDuration
		}
	}
	if opts.FlowTimeout <= 0 {
		opts.FlowTimeout = DefaultFlowTimeout
	}
	if opts.Now == nil {
		opts.Now = time.Now
	}
	if opts.CPUTime == nil {
		opts.CPUTime = cpuuse.Self
	}
	return nil
}

// openWorkers opens opts.Concurrency workers, one after another, by end at
// the latest. It returns those it opened, to be closed, with the error.
func openWorkers(ctx context.Context, opts *Options, end time.Time) ([]Worker, error) {
	workers := make([]Worker, 0, opts.Concurrency)
	octx, ocancel := context.WithDeadlineCause(ctx, end, ErrRunTooLong)
	defer ocancel()
	for i := 0; i < opts.Concurrency; i++ {
		w, err := opts.Open(octx)
		if err == nil && octx.Err() != nil {
			w.Close()
			err = context.Cause(octx)
		}
		if err != nil {
			if errors.Is(context.Cause(octx), ErrRunTooLong) {
				err = fmt.Errorf("%w (%s)", ErrRunTooLong, err)
			}
			return workers, fmt.Errorf("open worker %d of %d: %w", i+1, opts.Concurrency, err)
		}
		workers = append(workers, w)
	}
	return workers, nil
}

// run is one run of the flows, once its workers are open.
type run struct {
	opts        *Options
	ctx, runCtx context.Context // each flow's parent; the run's bound
	start       time.Time
	tickets     atomic.Int64 // flows handed out
	done        atomic.Int64
	failed      atomic.Int64
	interrupted atomic.Int64

	mu  sync.Mutex // guards rep, rng and tl
	rep *Report
	rng *lcg
	tl  *timeline

	// The tester's CPU time, read at every tick by watch.
	cpu0, cpuRead time.Duration
	cpuOK         bool
}

// take reports whether a worker may start another flow.
func (r *run) take() bool {
	if r.runCtx.Err() != nil {
		return false
	}
	if r.done.Load() == 0 && r.failed.Load() >= giveUpAfter {
		return false // nothing works: stop rather than spin
	}
	if r.opts.Requests > 0 && r.tickets.Add(1) > int64(r.opts.Requests) {
		return false
	}
	return true
}

// work runs flows on w while take lets it.
func (r *run) work(w Worker) {
	for r.take() {
		rounds := &Rounds{}
		fctx, fcancel := context.WithTimeout(r.ctx, r.opts.FlowTimeout)
		t0 := r.opts.Now()
		err := w.Flow(fctx, rounds)
		t1 := r.opts.Now()
		fcancel()
		r.record(t1.Sub(r.start), t1.Sub(t0), rounds, err)
	}
}

// record counts one flow that ended at, after d.
func (r *run) record(at, d time.Duration, rounds *Rounds, err error) {
	if err != nil && r.ctx.Err() != nil {
		// The run was interrupted under the flow: not the server's failure.
		r.interrupted.Add(1)
		return
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	r.tl.flow(at, d, err != nil)
	if err != nil {
		r.failed.Add(1)
		r.rep.addError(err)
		return
	}
	r.done.Add(1)
	r.rep.Flow.add(d, r.rng)
	for k, rd := range rounds.d {
		for len(r.rep.Rounds) <= k {
			r.rep.Rounds = append(r.rep.Rounds, Summary{})
		}
		r.rep.Rounds[k].add(rd, r.rng)
	}
}

// progress tells opts.Progress how far the run is.
func (r *run) progress() {
	if r.opts.Progress != nil {
		r.opts.Progress(Progress{Done: int(r.done.Load()), Failed: int(r.failed.Load()), Total: r.opts.Requests,
			Elapsed: r.opts.Now().Sub(r.start), Duration: durationBound(*r.opts)})
	}
}

// readCPU reads the tester's CPU time and puts what it used since the last
// reading in the slice of the moment it was read.
func (r *run) readCPU(now time.Time) {
	if !r.cpuOK {
		return
	}
	c, err := r.opts.CPUTime()
	if err != nil {
		r.cpuOK = false
		return
	}
	r.mu.Lock()
	r.tl.at(now.Sub(r.start)).cpu += max(c-r.cpuRead, 0)
	r.mu.Unlock()
	r.cpuRead = max(c, r.cpuRead)
}

// watch reads the CPU time and reports progress every tick until finished
// is closed.
func (r *run) watch(finished <-chan struct{}) {
	tick := time.NewTicker(100 * time.Millisecond)
	defer tick.Stop()
	for {
		select {
		case <-finished:
			return
		case <-tick.C:
			r.readCPU(r.opts.Now())
			r.progress()
		}
	}
}

// report is the run's report, once its flows have ended.
func (r *run) report() *Report {
	rep := r.rep
	last := r.opts.Now()
	rep.Elapsed = last.Sub(r.start)
	r.readCPU(last)
	if r.cpuOK {
		rep.Tester = Tester{CPU: r.cpuRead - r.cpu0, Measured: true}
	}
	r.progress()
	rep.Flows, rep.Failed, rep.Interrupted = int(r.done.Load()), int(r.failed.Load()), int(r.interrupted.Load())
	if rep.Elapsed > 0 {
		rep.Throughput = float64(rep.Flows) / rep.Elapsed.Seconds()
	}
	rep.Flow.finish()
	for k := range rep.Rounds {
		rep.Rounds[k].finish()
	}
	rep.Interval, rep.Timeline = r.tl.width, r.tl.intervals(rep.Elapsed)
	return rep
}

// durationBound is the time bound a progress bar shows: none for a run
// bounded by a number of flows.
func durationBound(o Options) time.Duration {
	if o.Requests > 0 {
		return 0
	}
	return o.Duration
}

func (r *Report) addError(err error) {
	msg := err.Error()
	for _, e := range r.Errors {
		if e == msg {
			return
		}
	}
	if len(r.Errors) < maxErrorSamples {
		r.Errors = append(r.Errors, msg)
	}
}

func (s *Summary) add(d time.Duration, rng *lcg) {
	s.seen++
	s.Count++
	s.Mean += d // the sum until finish
	if d > s.Max {
		s.Max = d
	}
	if s.hist == nil {
		s.hist = histogram{}
	}
	s.hist.add(d)
	if len(s.samples) < maxSamples {
		s.samples = append(s.samples, d)
		return
	}
	if k := rng.intn(s.seen); k < maxSamples {
		s.samples[k] = d
	}
}

func (s *Summary) finish() {
	if s.Count == 0 {
		return
	}
	s.Mean /= time.Duration(s.Count)
	sort.Slice(s.samples, func(i, j int) bool { return s.samples[i] < s.samples[j] })
	s.P50, s.P90, s.P99 = percentile(s.samples, 50), percentile(s.samples, 90), percentile(s.samples, 99)
	s.samples = nil
	s.Histogram = s.hist.buckets()
	s.hist = nil
}

// percentile is the nearest-rank percentile of sorted samples.
func percentile(sorted []time.Duration, p int) time.Duration {
	if len(sorted) == 0 {
		return 0
	}
	rank := (p*len(sorted) + 99) / 100 // ceil(p/100 * n)
	if rank < 1 {
		rank = 1
	}
	return sorted[rank-1]
}

// lcg is a small deterministic generator for reservoir sampling.
type lcg struct{ x uint64 }

func newRand(seed int64) *lcg { return &lcg{x: uint64(seed) | 1} }

func (g *lcg) intn(n int) int {
	g.x = g.x*6364136223846793005 + 1442695040888963407
	return int((g.x >> 33) % uint64(n))
}
