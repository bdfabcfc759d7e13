#include <stdio.h>
int main(void){fprintf(stderr,"expected 2, got 3\n");return 1;}
