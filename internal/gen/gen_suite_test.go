package gen

import (
	"flag"
	"fmt"
	"runtime"
	"strings"
	"sync"
	"testing"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	"pgregory.net/rapid"
)

func TestGen(t *testing.T) {
	// Two specs fail rapid on purpose, and fail files would land in
	// testdata/. A genuine failure still prints its -rapid.seed.
	if err := flag.Set("rapid.nofailfile", "true"); err != nil {
		t.Fatal(err)
	}
	RegisterFailHandler(Fail)
	RunSpecs(t, "gen")
}

// recorder is a rapid.TB that collects failures instead of failing the
// Ginkgo spec directly, so many rapid.Check runs can share one spec and run
// on several goroutines (GinkgoT's Fail must stay on the spec goroutine).
type recorder struct {
	name string

	mu     sync.Mutex
	failed bool
	out    []string
}

var _ rapid.TB = (*recorder)(nil)

func (r *recorder) Helper()      {}
func (r *recorder) Name() string { return r.name }
func (r *recorder) Logf(format string, args ...any) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.out = append(r.out, fmt.Sprintf(format, args...))
}
func (r *recorder) Log(args ...any)                   { r.Logf("%s", fmt.Sprint(args...)) }
func (r *recorder) Errorf(format string, args ...any) { r.Logf(format, args...); r.Fail() }
func (r *recorder) Error(args ...any)                 { r.Log(args...); r.Fail() }
func (r *recorder) Fatalf(format string, args ...any) { r.Errorf(format, args...); runtime.Goexit() }
func (r *recorder) Fatal(args ...any)                 { r.Error(args...); runtime.Goexit() }
func (r *recorder) FailNow()                          { r.Fail(); runtime.Goexit() }
func (r *recorder) Skipf(format string, args ...any)  { r.Logf(format, args...); runtime.Goexit() }
func (r *recorder) Skip(args ...any)                  { r.Log(args...); runtime.Goexit() }
func (r *recorder) SkipNow()                          { runtime.Goexit() }
func (r *recorder) Fail() {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.failed = true
}
func (r *recorder) Failed() bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.failed
}

// checkAll runs one rapid property per named item on all CPUs and returns
// the failure reports, each headed by the item's name.
func checkAll[T any](names []string, items []T, prop func(item T) func(*rapid.T)) []string {
	var (
		mu       sync.Mutex
		failures []string
		wg       sync.WaitGroup
	)
	work := make(chan int)
	for range runtime.GOMAXPROCS(0) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range work {
				rec := &recorder{name: names[i]}
				done := make(chan struct{})
				go func() {
					defer close(done)
					rapid.Check(rec, prop(items[i]))
				}()
				<-done
				if rec.Failed() {
					mu.Lock()
					failures = append(failures, names[i]+":\n"+strings.Join(rec.out, "\n"))
					mu.Unlock()
				}
			}
		}()
	}
	for i := range items {
		work <- i
	}
	close(work)
	wg.Wait()
	return failures
}

var _ = Describe("checkAll", func() {
	It("reports rapid failures under the item's name", func() {
		failures := checkAll([]string{"ok", "bad"}, []int{1, 2}, func(n int) func(*rapid.T) {
			return func(t *rapid.T) {
				if rapid.IntRange(0, 10).Draw(t, "x") > 5 && n == 2 {
					t.Fatalf("boom")
				}
			}
		})
		Expect(failures).To(HaveLen(1))
		Expect(failures[0]).To(HavePrefix("bad:"))
	})
})
