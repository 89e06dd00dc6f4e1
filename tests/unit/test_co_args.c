/* test_co_args: being written. */
int main(void)
{
    return 77;
}
