/*
** 2026-11-29
**
** bench/zl/wasm_speed.c - speeds in wasm (bench/zl/wasm-size.sh SPEED=1, Emscripten under node)
** of the zstd build the project links and of the zl codec: zstd -3 compress, zstd decoding its
** -3 and -19 frames (one reused context each), cairn level 3 compress, cairn decoding its default
** frame. Best of 7 runs.
**   wasm_speed FILE PROFILE [FILE PROFILE]...
*/
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <zstd.h>
#include "cairn/cairn.h"
static double now(void){struct timespec t;clock_gettime(CLOCK_MONOTONIC,&t);return t.tv_sec+t.tv_nsec*1e-9;}
int main(int argc,char**argv){
  ZSTD_CCtx*cc=ZSTD_createCCtx();ZSTD_DCtx*dc=ZSTD_createDCtx(); /* reused: no allocation in the timed calls */
  for(int a=1;a<argc;a+=2){FILE*f=fopen(argv[a],"rb");if(!f)return 1;fseek(f,0,SEEK_END);long n=ftell(f);fseek(f,0,SEEK_SET);
  unsigned char*p=malloc(n),*d=malloc(n),*c=malloc(ZSTD_compressBound(n)+cairn_zl_compress_bound(n));fread(p,1,n,f);fclose(f);
  size_t cap=ZSTD_compressBound(n)+cairn_zl_compress_bound(n),nc=0,nd;int prof=cairn_zl_profile_from_name(argv[a+1]);
  double tz3=1e9,tzd3=1e9,tzd19=1e9,tc3=1e9,tcd=1e9,t;
  for(int r=0;r<7;r++){t=now();nc=ZSTD_compressCCtx(cc,c,cap,p,n,3);t=now()-t;if(t<tz3)tz3=t;}
  for(int r=0;r<7;r++){t=now();ZSTD_decompressDCtx(dc,d,n,c,nc);t=now()-t;if(t<tzd3)tzd3=t;}
  nc=ZSTD_compressCCtx(cc,c,cap,p,n,19);
  for(int r=0;r<7;r++){t=now();ZSTD_decompressDCtx(dc,d,n,c,nc);t=now()-t;if(t<tzd19)tzd19=t;}
  for(int r=0;r<7;r++){t=now();cairn_zl_compress_level(prof,3,p,n,c,cap,&nc);t=now()-t;if(t<tc3)tc3=t;}
  cairn_zl_compress(prof,p,n,c,cap,&nc);
  for(int r=0;r<7;r++){t=now();cairn_zl_decompress(c,nc,d,n,&nd);t=now()-t;if(t<tcd)tcd=t;}
  double mb=n/1e6;const char*b=argv[a];for(const char*q=b;*q;q++)if(*q=='/')b=q+1;
  printf("%-20s %-6s z3 %7.1f zd3 %7.1f zd19 %7.1f | zl c3 %7.1f zl d %7.1f MB/s\n",b,argv[a+1],mb/tz3,mb/tzd3,mb/tzd19,mb/tc3,mb/tcd);}
  return 0;}
