// The thread count that a certificate for one count names, read and refused with its reason.
#pragma once

#include <cstdint>
#include <string>

#include <fmt/format.h>

#include "common/diagnostics.h"
#include "common/json_reader.h"
#include "drb/ast.h"

namespace druba::check {

// A certificate for one thread count is checked with every thread written out (its locations and
// locals, its steps, each quantifier expanded over the threads), and one for every count from N
// (`"every_count": true`) with N distinct threads stated, so both counts are capped.
inline constexpr std::uint32_t kMaxUnrolledThreads = 64;

// `threads` as a count of `program`'s (the first count, `every_count`): 1 to kMaxUnrolledThreads,
// and the program's own count when it has more than one template. Throws InputError at `threads`
// naming what is wrong.
inline std::uint32_t ReadThreadCount(const JsonValue& threads, const drb::Program& program,
                                     bool every_count = false) {
  const std::uint32_t n = threads.AsUInt();
  if (n == 0) throw InputError(threads.where, "a thread count of 0");
  if (n > kMaxUnrolledThreads) {
    throw InputError(
        threads.where,
        fmt::format("{} threads: the checker states {}, at most {}", n,
                    every_count
                        ? "the first count's threads as distinct elements"
                        : "a certificate for one thread count with every thread written out",
                    kMaxUnrolledThreads));
  }
  if (program.templates.size() > 1 && n != program.NumThreads() && !every_count) {
    throw InputError(threads.where,
                     fmt::format("{} threads, where the model's thread templates make {}", n,
                                 program.NumThreads()));
  }
  return n;
}

}  // namespace druba::check
