#include "run/options.h"

#include <algorithm>
#include <thread>

namespace druba::run {

unsigned JobsFromOption(unsigned jobs) {
  return jobs != 0 ? jobs : std::max(1U, std::thread::hardware_concurrency());
}

}  // namespace druba::run
