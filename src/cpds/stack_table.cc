#include "cpds/stack_table.h"

#include <algorithm>

namespace druba::cpds {

StackId StackTable::Intern(const Stack& bottom_to_top) {
  StackId id = kEmpty;
  for (const Symbol symbol : bottom_to_top) id = Push(symbol, id);
  return id;
}

Stack StackTable::Contents(StackId id) const {
  Stack stack;
  for (; id != kEmpty; id = Rest(id)) stack.push_back(Top(id));
  std::reverse(stack.begin(), stack.end());
  return stack;
}

}  // namespace druba::cpds
