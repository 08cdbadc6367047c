// Replaying a saved trace of a .drb program: every slot re-executed on the interpreter, with the
// statement's label, line and text and every recorded state checked, and a failed thread at the
// end. This is also how a counterexample is confirmed concrete.
#pragma once

#include <string>

#include "common/json_reader.h"
#include "explore/replay.h"
#include "interp/program.h"

namespace druba::predabs {

// Throws InputError at the first place in `doc` (read from `trace_file`) that does not fit.
ReplayOutcome ReplayTrace(const Program& program, const JsonValue& doc,
                          const std::string& trace_file);

}  // namespace druba::predabs
