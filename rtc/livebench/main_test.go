package livebench

import (
	"testing"

	"github.com/vibespace/vibespace/testenv"
)

func TestMain(m *testing.M) { testenv.Main(m) }
