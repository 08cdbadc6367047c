// The part of `druba replay` that does not depend on the model: a saved trace's "steps" under
// Round-Robin. The first step, and only it, is 'initial'; every later slot belongs to thread
// (previous + 1) mod n and is a 'step', a 'stutter' or a 'delay'. `take(step, thread, kind,
// slot)` re-executes a step or a stutter on the model (and throws InputError when it does not
// fit); after every slot the recorded "state", where present, must equal `describe()`.
#pragma once

#include <cstdint>
#include <string>

#include "common/diagnostics.h"
#include "common/json_reader.h"

namespace druba::cli {

// Returns the number of delays. Throws InputError naming the offending place in the file.
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
    if (step.Has("state") && step.At("state").AsString() != describe()) {
      throw InputError(step.At("state").where, slot + "the trace says " +
                                                   step.At("state").AsString() +
                                                   " but the model reaches " + describe());
    }
  }
  return delays;
}

}  // namespace druba::cli
