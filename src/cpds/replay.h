// Replaying a saved trace of a CPDS: every slot re-executed on the model, each step's rule (by its
// line and text) and every recorded state checked, and the last state matched against the target
// through the top-K abstraction. This is also how a counterexample is confirmed concrete.
#pragma once

#include <string>

#include "common/json_reader.h"
#include "cpds/model.h"
#include "cpds/top_k.h"
#include "explore/replay.h"

namespace druba::cpds {

// Throws InputError at the first place in `doc` (the trace file) that does not fit, or
// when the trace does not end in `target_text` (as `abs` decides). `model_file` names the model in
// messages.
ReplayOutcome ReplayTrace(CpdsModel& model, const TopKAbstraction& abs, const JsonValue& doc,
                          const std::string& model_file, const std::string& target_text);

}  // namespace druba::cpds
