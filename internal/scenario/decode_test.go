package scenario_test

import "github.com/wirecheck/wirecheck/internal/schema"

func scenarioDecode(s string) (any, error) { return schema.Decode([]byte(s)) }
