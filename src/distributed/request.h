// What a distributed run is asked besides its model and property (the front ends fill it): the
// bounds of a test, how states travel, what process 0 gathers, and its progress reports.
#pragma once

#include <cstddef>

#include "distributed/progress.h"
#include "explore/node.h"

namespace druba::distributed {

// Bytes of successors a process queues for the others before an exchange (4 MiB).
inline constexpr std::size_t kDefaultBatchBytes = std::size_t{1} << 22;

struct Request {
  Bounds bounds;          // test: the bounds to reach
  bool stepwise = false;  // test: reach them one raise at a time (as verify does), not at once
  std::size_t batch_bytes = kDefaultBatchBytes;
  bool gather_answer = false;  // verify: O gathered at process 0 when it answers (a certificate)
  // verify: after a failed closure test, the exact search goes on towards exhaustion for at most
  // this many times the successor calls spent before it, counted as at least 2^18 (druba's
  // --exhaust-share; 0: the paper's proof alone).
  double exhaust_share = 4;
  Progress progress;  // with progress_interval_s > 0: reports at process 0
  double progress_interval_s = 0;
};

}  // namespace druba::distributed
