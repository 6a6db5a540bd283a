package gen

import (
	"encoding/json"
	"math/big"

	"pgregory.net/rapid"
)

// spread is how far from a one-sided bound (or from zero) numbers wander.
const spread = 1000

// number builds an integral (integer=true) or fractional number inside the
// intersection of all bounds, as a multiple of the lcm of all multipleOf
// values. Everything is exact rational arithmetic.
func (r *run) number(t *rapid.T, f *flat, integer bool) json.Number {
	var lo, hi, mult *big.Rat
	var loEx, hiEx bool
	tighten := func(b *big.Rat, ex, lower bool) {
		cur, curEx := &hi, &hiEx
		if lower {
			cur, curEx = &lo, &loEx
		}
		if *cur == nil {
			*cur, *curEx = b, ex
			return
		}
		c := b.Cmp(*cur)
		if !lower {
			c = -c
		}
		switch {
		case c > 0:
			*cur, *curEx = b, ex
		case c == 0:
			*curEx = *curEx || ex
		}
	}
	for _, n := range f.nodes {
		s := n.s
		if s.Minimum != nil {
			tighten(s.Minimum, false, true)
		}
		if s.ExclusiveMinimum != nil {
			tighten(s.ExclusiveMinimum, true, true)
		}
		if s.Maximum != nil {
			tighten(s.Maximum, false, false)
		}
		if s.ExclusiveMaximum != nil {
			tighten(s.ExclusiveMaximum, true, false)
		}
		if s.MultipleOf != nil && s.MultipleOf.Sign() > 0 {
			mult = lcmRat(mult, s.MultipleOf)
		}
	}
	if integer {
		mult = lcmRat(mult, big.NewRat(1, 1))
	}

	if mult != nil {
		kLo, kHi := scaledRange(lo, hi, loEx, hiEx, new(big.Rat).Inv(mult))
		k := pickInt(t, kLo, kHi)
		return ratNumber(new(big.Rat).Mul(new(big.Rat).SetInt(k), mult))
	}

	// Fractional numbers are integers over a power of ten. Start from a
	// random precision and refine it until the interval holds a point, so
	// that tight bounds such as (0, 0.001) still work.
	exp := intIn(t, 1, 3, "precision")
	scale := new(big.Int).Exp(big.NewInt(10), big.NewInt(int64(exp)), nil)
	for range 24 {
		kLo, kHi := scaledRange(lo, hi, loEx, hiEx, new(big.Rat).SetInt(scale))
		if kLo == nil || kHi == nil || kLo.Cmp(kHi) <= 0 {
			k := pickInt(t, kLo, kHi)
			return ratNumber(new(big.Rat).SetFrac(k, scale))
		}
		scale.Mul(scale, big.NewInt(10))
	}
	reject("empty numeric range")
	return ""
}

// scaledRange maps the bounds to the integer range of k with k/scale inside
// them.
func scaledRange(lo, hi *big.Rat, loEx, hiEx bool, scale *big.Rat) (*big.Int, *big.Int) {
	var kLo, kHi *big.Int
	if lo != nil {
		x := new(big.Rat).Mul(lo, scale)
		kLo = ceilRat(x)
		if loEx && x.IsInt() {
			kLo.Add(kLo, big.NewInt(1))
		}
	}
	if hi != nil {
		x := new(big.Rat).Mul(hi, scale)
		kHi = floorRat(x)
		if hiEx && x.IsInt() {
			kHi.Sub(kHi, big.NewInt(1))
		}
	}
	return kLo, kHi
}

// pickInt draws from [lo, hi], either side possibly unbounded. Wide ranges
// are sampled near their ends, where off-by-one bugs live.
func pickInt(t *rapid.T, lo, hi *big.Int) *big.Int {
	off := func(label string) *big.Int {
		return big.NewInt(int64(offsetGen.Draw(t, label)))
	}
	switch {
	case lo == nil && hi == nil:
		return big.NewInt(int64(freeIntGen.Draw(t, "int")))
	case hi == nil:
		return new(big.Int).Add(lo, off("above"))
	case lo == nil:
		return new(big.Int).Sub(hi, off("below"))
	}
	if lo.Cmp(hi) > 0 {
		reject("empty numeric range [%v, %v]", lo, hi)
	}
	w := new(big.Int).Sub(hi, lo)
	if w.IsInt64() && w.Int64() <= 2*spread*spread {
		return new(big.Int).Add(lo, big.NewInt(rapid.Int64Range(0, w.Int64()).Draw(t, "offset")))
	}
	if boolGen.Draw(t, "from top") {
		return new(big.Int).Sub(hi, off("below"))
	}
	return new(big.Int).Add(lo, off("above"))
}

var (
	offsetGen  = rapid.IntRange(0, spread)
	freeIntGen = rapid.IntRange(-spread*spread, spread*spread)
)

func floorRat(x *big.Rat) *big.Int {
	// big.Int.Div is Euclidean, i.e. floor division for the positive
	// denominator a big.Rat always has.
	return new(big.Int).Div(x.Num(), x.Denom())
}

func ceilRat(x *big.Rat) *big.Int {
	q := floorRat(x)
	if !x.IsInt() {
		q.Add(q, big.NewInt(1))
	}
	return q
}

// lcmRat is the least common multiple of positive rationals:
// lcm(a/b, c/d) = lcm(a, c) / gcd(b, d) for reduced fractions.
func lcmRat(a, b *big.Rat) *big.Rat {
	if a == nil {
		return new(big.Rat).Set(b)
	}
	an, bn := a.Num(), b.Num()
	g := new(big.Int).GCD(nil, nil, an, bn)
	l := new(big.Int).Mul(an, bn)
	l.Quo(l, g)
	d := new(big.Int).GCD(nil, nil, a.Denom(), b.Denom())
	return new(big.Rat).SetFrac(l, d)
}
