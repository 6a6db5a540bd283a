package httpmcp

func (c *client) legacySend(body []byte, out outgoing, raw bool) error { return nil }

func (c *client) legacyStop() {}
