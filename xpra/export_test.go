package xpra

import "context"

// RawInfo is `xpra info`'s output as the server printed it.
func (d *Display) RawInfo(ctx context.Context) (string, error) { return d.srv.run(ctx, "info") }
