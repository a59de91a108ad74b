// loglines: a request pod whose log lines try to forge and inject, for the
// log escaping tests (docs/serve.md, "Hostile clients"). Each request logs
//   - one k32_log line with ESC sequences (a colour, OSC 52 that would set
//     the clipboard, a screen clear), BEL, CR, NUL, DEL, a C1 CSI, an
//     invalid byte, a non-ASCII letter and a tab, then a newline and a line
//     that poses as another pod's;
//   - one write to stdout of two lines, the first with ESC and CR, the
//     second posing as another pod's;
// and answers "logged". It includes only the C SDK, so that a test builds
// it as a project's pod.
#include <unistd.h>
#include "k32.h"

static const char k32line[] =
	"k32 \x1b[31mred\x1b[0m osc52=\x1b]52;c;SGVsbG8=\x07 cr=\roverwritten nul=\0end del=\x7f "
	"c1=\xc2\x9b" "2J bad=\xff caf\xc3\xa9 tab=\tx\n[default/other] forged by k32_log";
static const char outlines[] =
	"out \x1b[2Jcleared cr=\rback\n[default/other] forged by stdout\n";

K32_EXPORT(k32_handle) int32_t k32_handle(void) {
	k32_log(1, k32line, sizeof k32line - 1);
	write(1, outlines, sizeof outlines - 1);
	k32_write_str("logged");
	return 0;
}
