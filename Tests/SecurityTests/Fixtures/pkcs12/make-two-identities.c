/* Writes a PKCS#12 file holding two keys and their certificates, each pair tied by localKeyID and
   friendlyName, plus an extra certificate: what `openssl pkcs12 -export` cannot make. */
#include <openssl/pkcs12.h>
#include <openssl/pem.h>
#include <stdio.h>
static EVP_PKEY *load_key(const char *p){FILE*f=fopen(p,"r");EVP_PKEY*k=PEM_read_PrivateKey(f,NULL,NULL,NULL);fclose(f);return k;}
static X509 *load_cert(const char *p){FILE*f=fopen(p,"r");X509*c=PEM_read_X509(f,NULL,NULL,NULL);fclose(f);return c;}
int main(int argc,char**argv){
  const char*pass="two";
  STACK_OF(PKCS12_SAFEBAG)*certs=NULL,*keys=NULL; STACK_OF(PKCS7)*safes=NULL;
  unsigned char id1[]={1,1,1,1}, id2[]={2,2,2,2};
  EVP_PKEY*k1=load_key("k1.pem"),*k2=load_key("k2.pem"); X509*c1=load_cert("c1.pem"),*c2=load_cert("c2.pem"),*c3=load_cert("c3.pem");
  PKCS12_SAFEBAG*b;
  b=PKCS12_add_cert(&certs,c1); PKCS12_add_localkeyid(b,id1,4); PKCS12_add_friendlyname(b,"first",-1);
  b=PKCS12_add_cert(&certs,c2); PKCS12_add_localkeyid(b,id2,4); PKCS12_add_friendlyname(b,"second",-1);
  PKCS12_add_cert(&certs,c3);
  b=PKCS12_add_key(&keys,k2,0,PKCS12_DEFAULT_ITER,NID_aes_256_cbc,pass); PKCS12_add_localkeyid(b,id2,4); PKCS12_add_friendlyname(b,"second",-1);
  b=PKCS12_add_key(&keys,k1,0,PKCS12_DEFAULT_ITER,NID_aes_256_cbc,pass); PKCS12_add_localkeyid(b,id1,4); PKCS12_add_friendlyname(b,"first",-1);
  PKCS12_add_safe(&safes,certs,NID_aes_256_cbc,PKCS12_DEFAULT_ITER,pass);
  PKCS12_add_safe(&safes,keys,-1,0,NULL);
  PKCS12*p=PKCS12_add_safes(safes,0);
  PKCS12_set_mac(p,pass,-1,NULL,0,PKCS12_DEFAULT_ITER,EVP_sha256());
  FILE*o=fopen("two.p12","wb"); i2d_PKCS12_fp(o,p); fclose(o); return 0;}
