package sim

import (
	"context"
	"errors"
	"math"
	"strings"
	"testing"

	"countsim/scenarios"
	"countsim/sim/engine"
	"countsim/workload"
)

// drawnPosts replaces the posts table's generator for the test with one
// that records the posts each table it is asked for expects.
func drawnPosts(t *testing.T) *[]float64 {
	t.Helper()
	var asked []float64
	orig := newPosts
	newPosts = func(ctx context.Context, cfg workload.PostsConfig) (*workload.Posts, error) {
		asked = append(asked, cfg.PostRate*float64(cfg.Duration)/1e9)
		return orig(ctx, cfg)
	}
	t.Cleanup(func() { newPosts = orig })
	return &asked
}

// viralPostsAt is the built-in viral-posts at rate posts a second, with
// its edits (old, new pairs) made.
func viralPostsAt(t *testing.T, rate string, edits ...string) *scenarios.Scenario {
	t.Helper()
	src, err := scenarios.BuiltinSource("viral-posts")
	if err != nil {
		t.Fatal(err)
	}
	const old = "rate: 5 "
	if !strings.Contains(string(src), old) {
		t.Fatalf("viral-posts.yaml has no %q", old)
	}
	yaml := strings.Replace(string(src), old, "rate: "+rate+" ", 1)
	for i := 0; i+1 < len(edits); i += 2 {
		if !strings.Contains(yaml, edits[i]) {
			t.Fatalf("viral-posts.yaml has no %q", edits[i])
		}
		yaml = strings.Replace(yaml, edits[i], edits[i+1], 1)
	}
	scn, err := scenarios.Parse("posts.yaml", []byte(yaml))
	if err != nil {
		t.Fatal(err)
	}
	return scn
}

// TestPostsRefusedBeforeDrawing: viral-posts with 16 M posts is refused by
// the memory check, at its workload's line, and the table generator was
// asked for the sample only — at most postsSampleMax posts — never for the
// run's table.
func TestPostsRefusedBeforeDrawing(t *testing.T) {
	asked := drawnPosts(t)
	_, err := engine.Prepare(viralPostsAt(t, "8_889"), engine.Options{})
	var se *scenarios.Error
	if !errors.As(err, &se) || !strings.Contains(err.Error(), "the run would need about") {
		t.Fatalf("Prepare: %v; want the memory check's refusal", err)
	}
	if len(*asked) == 0 {
		t.Fatal("no table drawn: the plan has no sample to work from")
	}
	for _, n := range *asked {
		if n > postsSampleMax {
			t.Errorf("a table of %.0f posts drawn before the refusal; the sample has at most %d", n, postsSampleMax)
		}
	}
}

// TestPostsPlanFromSample: a run of 4.5 times the sample's posts that fits
// (fixed-32 cut to 2 stripes and the likes to a fiftieth, so that the plan
// is 2.6 GB, not 14)
// is planned from the sample, then its whole table is drawn once the check
// passed; the memory the sample plans is within 5% of what the same
// account over the whole table gives, and stays what it was once the
// table is drawn. At the built-in's scale the sample is the table.
func TestPostsPlanFromSample(t *testing.T) {
	asked := drawnPosts(t)
	st, err := engine.Prepare(viralPostsAt(t, "164", "stripes: 32", "stripes: 2", "like_rate: 0.001", "like_rate: 0.00002"), engine.Options{}) // 295,200 posts
	if err != nil {
		t.Fatal(err)
	}
	k := st.Kind.(*postsKind)
	g := k.in.(*postsGen)
	if len(*asked) != 2 || (*asked)[0] > postsSampleMax || (*asked)[1] != 164*1800 {
		t.Fatalf("tables drawn of %v posts; want the sample's, then the run's 295,200", *asked)
	}
	if g.src == g.sample || math.Abs(float64(len(k.posts))-295200) > 6*math.Sqrt(295200) {
		t.Fatalf("the table holds %d posts; want about 295,200 drawn apart from the sample", len(k.posts))
	}
	planned := st.MemoryNeeded()
	sample, scale := g.sample, g.scale
	g.sample, g.scale = g.src, 1
	whole := st.MemoryNeeded()
	g.sample, g.scale = sample, scale
	if r := float64(planned) / float64(whole); math.Abs(r-1) > 0.05 {
		t.Errorf("memory planned from the sample %d, from the whole table %d: ratio %.4f, want within 5%%", planned, whole, r)
	}
	if again := st.MemoryNeeded(); again != planned {
		t.Errorf("memory planned %d at Prepare, %d after", planned, again)
	}
	// The built-in's 9,000 posts: one table, the sample itself.
	*asked = nil
	scn, err := scenarios.Builtin("viral-posts")
	if err != nil {
		t.Fatal(err)
	}
	if st, err = engine.Prepare(scn, engine.Options{}); err != nil {
		t.Fatal(err)
	}
	if g := st.Kind.(*postsKind).in.(*postsGen); len(*asked) != 1 || g.src != g.sample || g.scale != 1 {
		t.Errorf("viral-posts: tables drawn of %v posts, sample the table %v; want one, the table", *asked, g.src == g.sample)
	}
}
