package gen

// Options bounds the size of generated values. The zero value selects the
// defaults documented on the package; a negative field means zero, so that
// a caller can, for example, forbid unnamed properties entirely.
type Options struct {
	// MaxStringLen caps the length (in characters) of free text when the
	// schema allows longer strings. Strings built for a format or a
	// pattern are as long as their grammar makes them. Default 16.
	MaxStringLen int
	// MaxItems caps array length when the schema allows longer arrays.
	// Default 4.
	MaxItems int
	// MaxDepth is the container nesting depth after which only structure
	// that the schema requires is generated. Default 5.
	MaxDepth int
	// MaxExtraProperties caps properties that the schema does not name but
	// admits through additionalProperties or patternProperties. Default 2.
	MaxExtraProperties int
	// MaxAttempts bounds the sub-values tried while building one top-level
	// value. Retries nest, so without a budget an unsatisfiable schema
	// would make rapid retry exponentially in the nesting depth.
	// Default 10000.
	MaxAttempts int
}

const (
	defaultMaxStringLen       = 16
	defaultMaxItems           = 4
	defaultMaxDepth           = 5
	defaultMaxExtraProperties = 2
	defaultMaxAttempts        = 10000
)

func (o Options) withDefaults() Options {
	pick := func(v, def int) int {
		switch {
		case v == 0:
			return def
		case v < 0:
			return 0
		}
		return v
	}
	o.MaxStringLen = pick(o.MaxStringLen, defaultMaxStringLen)
	o.MaxItems = pick(o.MaxItems, defaultMaxItems)
	o.MaxDepth = pick(o.MaxDepth, defaultMaxDepth)
	o.MaxExtraProperties = pick(o.MaxExtraProperties, defaultMaxExtraProperties)
	o.MaxAttempts = pick(o.MaxAttempts, defaultMaxAttempts)
	if o.MaxAttempts == 0 {
		o.MaxAttempts = 1
	}
	return o
}
