/* test_co_output: being written. */
int main(void)
{
    return 77;
}
