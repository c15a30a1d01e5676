#pragma once
#include <cstdint>

namespace gputune {

// A seeded pseudo-random bijection on [0, size): a Feistel network over the next even power
// of two, cycle-walked back into range. Lets random search visit a space of any size in random
// order, never twice, without materialising it.
class RandomPermutation {
 public:
  RandomPermutation(uint64_t size, uint64_t seed);
  uint64_t operator()(uint64_t i) const;  // i in [0, size)
  uint64_t size() const { return size_; }

 private:
  uint64_t round_function(uint64_t half, int round) const;
  uint64_t encrypt(uint64_t x) const;

  uint64_t size_;
  int half_bits_ = 1;
  uint64_t half_mask_ = 1;
  uint64_t keys_[4];
};

}  // namespace gputune
