package kind

import "github.com/vibespace/vibespace/target"

// WheelDelta is how far steps turns of the wheel in dir (up, down, left,
// right) move, step units each: positive is down and right. Another
// direction is bad_request.
func WheelDelta(dir string, steps int, step float64) (dx, dy float64, err error) {
	d := step * float64(steps)
	switch dir {
	case "up":
		return 0, -d, nil
	case "down":
		return 0, d, nil
	case "left":
		return -d, 0, nil
	case "right":
		return d, 0, nil
	}
	return 0, 0, target.Refuse(target.CodeBadRequest, "scroll direction %q: use up, down, left or right", dir)
}
