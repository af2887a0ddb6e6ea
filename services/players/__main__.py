from services.players.service import main

main()
