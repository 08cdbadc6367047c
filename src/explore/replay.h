// Replaying a saved trace (the `--trace-out` JSON) on a model, the part that does not depend on
// the model kind: the header (version, thread count, and where present the model's name as a
// string and the property: assertion, deadlock or target), and the "steps" under Round-Robin.
// The first step, and only it, is 'initial' (its thread, where present, n - 1); every later slot
// belongs to thread (previous + 1) mod n and is a 'step', a 'stutter' or a 'delay'. `take(step,
// thread, kind, slot)` re-executes a step or a stutter on the model (and throws InputError when it
// does not fit); after every slot the recorded "state", where present, must equal `describe()`.
#pragma once

#include <cstdint>
#include <string>

#include "common/diagnostics.h"
#include "common/json_reader.h"

namespace druba {

// What a replay that confirmed its trace re-executed.
struct ReplayOutcome {
  std::uint32_t slots = 0;
  std::uint32_t delays = 0;
  std::string reached;  // the last state, described by the model
};

// The most threads a trace may have (as a `.drb` thread count: `thread P * 1000`).
inline constexpr std::uint32_t kMaxTraceThreads = 1000;

// The trace file's header: the format version (1) and, where the model fixes it, the thread
// count (`model_threads`, 0 when any count is allowed). Returns the trace's thread count.
inline std::uint32_t CheckTraceHeader(const JsonValue& doc, std::uint32_t model_threads,
                                      const std::string& violation) {
  const JsonValue& version = doc.At("druba_trace");
  if (version.AsUInt() != 1) {
    throw InputError(version.where, "unknown trace format version " +
                                        std::to_string(version.AsUInt()) +
                                        " (this druba reads version 1)");
  }
  const std::uint32_t n = doc.At("threads").AsUInt();
  if (n > kMaxTraceThreads) {  // a model that large would be built before a slot is read
    throw InputError(doc.At("threads").where, "the trace has " + std::to_string(n) +
                                                  " threads; a model has at most " +
                                                  std::to_string(kMaxTraceThreads));
  }
  if (n == 0 || (model_threads != 0 && n != model_threads)) {
    throw InputError(doc.At("threads").where, "the trace has " + std::to_string(n) +
                                                  " threads but the model has " +
                                                  std::to_string(model_threads));
  }
  if (doc.Has("model")) doc.At("model").AsString();
  // What the trace claims decides what its last state must show (a deadlock, a failed thread, a
  // target): a trace that claims nothing confirms nothing.
  const std::string& property = doc.At("property").AsString();
  if (property != "deadlock" && property != violation) {
    throw InputError(doc.At("property").where, "the property '" + property +
                                                   "' is not one of this model's (" + violation +
                                                   " or deadlock)");
  }
  return n;
}

// A recorded counter ("rounds", "delays") of a slot or of the whole trace must be the one the
// schedule gives.
inline void CheckCounter(const JsonValue& at, const char* key, std::uint32_t expected,
                         const std::string& slot) {
  if (!at.Has(key)) return;
  const JsonValue& value = at.At(key);
  if (value.AsUInt() != expected) {
    throw InputError(value.where, slot + "'" + key + "' is " + std::to_string(value.AsUInt()) +
                                      " but the schedule " + "gives " + std::to_string(expected));
  }
}

// Returns the number of delays. Throws InputError naming the offending place in the file. Each
// slot's "rounds" and "delays", where present, must be those of Def. 1 (rounds = ceil(slots / n)).
template <class Take, class Describe>
std::uint32_t WalkTrace(const JsonValue& steps, std::uint32_t n, Take&& take, Describe&& describe) {
  if (steps.kind != JsonValue::Kind::kArray || steps.items.empty()) {
    throw InputError(steps.where, "expected a non-empty array of steps");
  }
  std::uint32_t finder = n - 1;
  std::uint32_t delays = 0;
  for (std::size_t i = 0; i < steps.items.size(); ++i) {
    const JsonValue& step = steps.items[i];
    const std::string& kind = step.At("kind").AsString();
    const std::string slot = "slot " + std::to_string(i) + ": ";
    if (i == 0 || kind == "initial") {
      if (i != 0 || kind != "initial") {
        throw InputError(step.where, slot + "the first step, and only it, is 'initial'");
      }
      if (step.Has("thread") && step.At("thread").AsUInt() != n - 1) {
        throw InputError(step.At("thread").where,
                         slot + "the initial slot's thread is " + std::to_string(n - 1) +
                             ", the one before thread 0 under Round-Robin");
      }
    } else {
      const std::uint32_t thread = step.At("thread").AsUInt();
      const std::uint32_t expected = (finder + 1) % n;
      if (thread != expected) {
        throw InputError(step.At("thread").where,
                         slot + "the slot belongs to thread " + std::to_string(expected) +
                             " under Round-Robin, not thread " + std::to_string(thread));
      }
      if (kind == "delay") {
        ++delays;
      } else if (kind == "step" || kind == "stutter") {
        take(step, thread, kind, slot);
      } else {
        std::string message = slot;
        message.append("unknown kind '").append(kind).append("' (initial, step, stutter or delay)");
        throw InputError(step.At("kind").where, message);
      }
      finder = thread;
    }
    CheckCounter(step, "rounds", static_cast<std::uint32_t>((i + n - 1) / n), slot);
    CheckCounter(step, "delays", delays, slot);
    if (step.Has("state") && step.At("state").AsString() != describe()) {
      throw InputError(step.At("state").where, slot + "the trace says " +
                                                   step.At("state").AsString() +
                                                   " but the model reaches " + describe());
    }
  }
  return delays;
}

}  // namespace druba
