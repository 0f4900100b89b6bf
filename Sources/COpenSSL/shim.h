// SHA-256 through OpenSSL's EVP interface (libcrypto, which libcurl already loads).
#include <openssl/evp.h>
