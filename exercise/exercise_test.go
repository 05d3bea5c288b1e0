package exercise

import (
	"testing"
)

func TestReferencePassesEverythingInProcess(t *testing.T) {
	fx := loadFixtures(t)
	for _, seed := range []int64{1, 2} {
		res, err := Conform(referenceCaller(t), allOps, Options{Seed: seed, Fixtures: fx})
		if err != nil {
			t.Fatal(err)
		}
		for _, ex := range res {
			for _, c := range ex.Criteria {
				if c.Status != Pass {
					t.Errorf("seed %d: %s %s: %s %+v", seed, c.ID, c.Name, c.Status, c.Failure)
				}
				if c.Cases == 0 {
					t.Errorf("seed %d: %s has no case", seed, c.ID)
				}
			}
		}
	}
}
