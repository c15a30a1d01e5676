#include "strategy/permutation.h"

namespace gputune {

namespace {
uint64_t splitmix64(uint64_t x) {
  x += 0x9e3779b97f4a7c15ull;
  x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ull;
  x = (x ^ (x >> 27)) * 0x94d049bb133111ebull;
  return x ^ (x >> 31);
}
}  // namespace

RandomPermutation::RandomPermutation(uint64_t size, uint64_t seed) : size_(size) {
  while (half_bits_ < 32 && (uint64_t{1} << (2 * half_bits_)) < size) ++half_bits_;
  half_mask_ = (uint64_t{1} << half_bits_) - 1;
  uint64_t state = seed;
  for (auto& key : keys_) key = state = splitmix64(state);
}

uint64_t RandomPermutation::round_function(uint64_t half, int round) const {
  return splitmix64(half ^ keys_[round]) & half_mask_;
}

uint64_t RandomPermutation::encrypt(uint64_t x) const {
  uint64_t left = x >> half_bits_, right = x & half_mask_;
  for (int round = 0; round < 4; ++round) {
    uint64_t next = left ^ round_function(right, round);
    left = right;
    right = next;
  }
  return (left << half_bits_) | right;
}

uint64_t RandomPermutation::operator()(uint64_t i) const {
  // Cycle walking: the Feistel network is a bijection on [0, 4^half_bits), so repeatedly
  // applying it to an out-of-range value lands back in [0, size) and stays a bijection there.
  uint64_t x = encrypt(i);
  while (x >= size_) x = encrypt(x);
  return x;
}

}  // namespace gputune
