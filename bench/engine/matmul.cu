// C = A * B, one thread per element of C (row-major; A is m x k, B is k x n).
// A first version: each thread walks a row of A and a column of B.
__global__ void matmul(float* C, const float* A, const float* B, int m, int n, int k) {
  int col = blockIdx.x * blockDim.x + threadIdx.x;
  int row = blockIdx.y * blockDim.y + threadIdx.y;
  if (row < m && col < n) {
    float sum = 0.0f;
    for (int i = 0; i < k; i++) {
      sum += A[row * k + i] * B[i * n + col];
    }
    C[row * n + col] = sum;
  }
}
