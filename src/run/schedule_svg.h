// Pictures of a run, as SVG. `--schedule-svg`: the driver's path through the (rounds, delays)
// plane, as in the paper's Fig. 1 (right): one arrow per bound raise, red when it found new
// abstract states and green when it did not, the final plateau shaded, and the point where the
// closure test ran marked. `--trace-svg`: a violation's trace as a sequence chart.
#pragma once

#include <string>
#include <vector>

#include "abstraction/driver.h"
#include "run/report.h"

namespace druba::run {

std::string ScheduleSvg(const std::vector<RaiseEvent>& schedule, const RunResult& result,
                        const std::string& title);

// A sequence chart of a violation's trace: one column per thread, one row per statement (its
// number, round and delays before it, the statement in its thread's column, what it changed),
// the failing statement in red, and the initial and reached states.
std::string TraceSvg(const std::vector<TraceLine>& trace, std::uint32_t threads,
                     const std::string& title);

}  // namespace druba::run
