// Eigensolvers for PCA: a symmetric matrix's top eigenvectors (Householder tridiagonalisation, bisection, inverse
// iteration), and the small dense pieces the iterative routes share (Jacobi on a Rayleigh-Ritz matrix, Gram-Schmidt,
// a seeded start).
#pragma once

#include <cstddef>
#include <vector>

namespace posembed::detail {

// Orthonormalises the p columns of basis ([d, p], column j at basis[k * p + j]) by modified Gram-Schmidt.
// A column that vanishes (data of lower rank than p) is replaced by the first axis independent of the others.
void orthonormalise(std::vector<double>& basis, std::size_t d, std::size_t p);

// p orthonormal directions in d dimensions, the same every time: where an iteration starts.
std::vector<double> seeded_basis(std::size_t d, std::size_t p);

// Rayleigh-Ritz's small eigenproblem: small (p × p, symmetrised first: a product of rounded values is not quite) is
// diagonalised, its diagonal left holding the eigenvalues and rotation's columns the eigenvectors; the eigenvalues'
// indices are returned largest first.
std::vector<std::size_t> largest_first(std::vector<double>& small, std::vector<double>& rotation, std::size_t p);

// The eigenvectors of the largest `count` eigenvalues of the symmetric cov (d × d; overwritten), largest first,
// as the columns of basis ([d, count]).
void top_eigenvectors(std::vector<double>& cov, std::size_t d, std::size_t count, std::vector<double>& basis);

}  // namespace posembed::detail
