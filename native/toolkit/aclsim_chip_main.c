/*
 * aiocann toolkit: bin/aclsim-chip, what the simulated chip is (aclsim_chip.h), for the shell.
 *
 * set_env.sh runs it to export SOC_VERSION, as CANN's sample scripts ask the runtime
 * (aclrtGetSocName) for it: the value follows AIOCANN_SIM_SOC_NAME at the time it runs.
 *
 *   aclsim-chip            the SoC version family ("Ascend910B"), what SOC_VERSION holds
 *   aclsim-chip --name     the part's name ("Ascend910B1"), what aclrtGetSocName returns
 *   aclsim-chip --arch     the kernel compiler's --npu-arch ("dav-2201")
 *   aclsim-chip --all      all three, one "key=value" a line
 * Exit status 1 (and the runtime's message) when AIOCANN_SIM_SOC_NAME names no known part,
 * 2 on a usage error.
 */
#include <stdio.h>
#include <string.h>

#include "acl/acl.h"
#include "aclsim_chip.h"

int main(int argc, char **argv)
{
    const char *what = argc > 1 ? argv[1] : "--version";
    if (argc > 2 || (strcmp(what, "--version") && strcmp(what, "--name") && strcmp(what, "--arch") &&
                     strcmp(what, "--all"))) {
        fprintf(stderr, "usage: aclsim-chip [--version | --name | --arch | --all]\n");
        return 2;
    }
    const aclsimChip *chip = aclsimGetChip();
    if (!chip) {
        fprintf(stderr, "aclsim-chip: %s\n", aclGetRecentErrMsg());
        return 1;
    }
    if (!strcmp(what, "--all"))
        printf("soc_version=%s\nsoc_name=%s\nnpu_arch=%s\n", chip->soc_version, chip->soc_name, chip->arch_name);
    else
        puts(!strcmp(what, "--name") ? chip->soc_name : !strcmp(what, "--arch") ? chip->arch_name : chip->soc_version);
    return 0;
}
