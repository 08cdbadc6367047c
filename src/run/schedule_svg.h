// `--schedule-svg`: the driver's path through the (rounds, delays) plane, as in the paper's
// Fig. 1 (right): one arrow per bound raise, red when it found new abstract states and green when
// it did not, the final plateau shaded, and the point where the closure test ran marked.
#pragma once

#include <string>
#include <vector>

#include "abstraction/driver.h"

namespace druba::run {

std::string ScheduleSvg(const std::vector<RaiseEvent>& schedule, const RunResult& result,
                        const std::string& title);

}  // namespace druba::run
