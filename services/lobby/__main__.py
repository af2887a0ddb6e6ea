from services.lobby.service import main

main()
