/* test_co_keys: being written. */
int main(void)
{
    return 77;
}
