// y = A x for a row-major m x n matrix A: one thread per row, each walking its own row.
__global__ void matvec(float* y, const float* A, const float* x, int m, int n) {
  int row = blockIdx.x * blockDim.x + threadIdx.x;
  if (row < m) {
    float dot = 0.0f;
    for (int j = 0; j < n; ++j) {
      dot += A[(size_t)row * n + j] * x[j];
    }
    y[row] = dot;
  }
}
