package admission

import "testing"

// Each strategy owns the reads of its kind (docs/design.md, "How objects
// enter the store"): a computed kind says how it is computed, a review how
// it is answered, and a kind a manifest may hold is one admission
// validates; no strategy has a part that its kind never uses.
func TestStrategiesOwnTheirReads(t *testing.T) {
	manifests := 0
	for _, s := range Strategies {
		if (s.Compute != nil) != s.Computed {
			t.Errorf("%s: Computed %v, Compute set %v", s.Kind, s.Computed, s.Compute != nil)
		}
		if (s.Answer != nil) != s.Review {
			t.Errorf("%s: Review %v, Answer set %v", s.Kind, s.Review, s.Answer != nil)
		}
		if s.Manifest {
			manifests++
			if s.Computed || s.Review || s.Validate == nil {
				t.Errorf("%s: a manifest may hold it, yet admission does not validate it", s.Kind)
			}
		}
		if s.Review {
			obj := s.New()
			s.Answer(obj) // panics on a strategy whose Answer takes another type
		}
	}
	if manifests == 0 {
		t.Error("no strategy lets a manifest hold its kind")
	}
}
